"""Table options: what a game declares (:class:`Option`) and the check of a value a new
table is given (:func:`option_problem`, run per option by ``Game.validate_options``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """One table option: its JSON-schema type, default and human description."""

    type: str  # "integer" | "boolean" | "string"
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | tuple[int, ...] | None = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out


def option_problem(name: str, spec: Option, value: Any) -> str | None:
    """Why ``value`` is not a valid value of option ``name``, in words; None when it is."""
    if value is None and spec.default is None:
        return None
    if spec.type == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return f"option {name} must be an integer"
        if spec.minimum is not None and value < spec.minimum:
            return f"option {name} must be at least {spec.minimum}"
        if spec.maximum is not None and value > spec.maximum:
            return f"option {name} must be at most {spec.maximum}"
        if spec.choices is not None and value not in spec.choices:
            return f"option {name} must be {either(spec.choices)}"
    elif spec.type == "boolean":
        if not isinstance(value, bool):
            return f"option {name} must be true or false"
    elif spec.type == "string":
        if not isinstance(value, str):
            return f"option {name} must be a string"
        if spec.choices is not None and value not in spec.choices:
            return f"option {name} must be one of {either(spec.choices)}"
    return None


def either(choices: tuple[str, ...] | tuple[int, ...] | list[Any]) -> str:
    """``a, b or c``."""
    words = [str(choice) for choice in choices]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
