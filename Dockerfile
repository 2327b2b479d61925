# The hub image: built from the wheel (what `pip install` gives a user), run as a
# non-root user.  docker-compose.yml runs two of these behind nginx.
FROM python:3.11-slim AS build
WORKDIR /src
COPY . /src
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
COPY --from=build /dist/*.whl /tmp/
RUN pip install --no-cache-dir /tmp/*.whl && rm /tmp/*.whl \
    && useradd --system --create-home --uid 10001 tablehub
USER tablehub
WORKDIR /home/tablehub
EXPOSE 8000
CMD ["tablehub", "serve", "--host", "0.0.0.0", "--port", "8000"]
