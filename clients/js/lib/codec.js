// Frames <-> messages for the two subprotocols of protocol v1.
//
//   tablehub.v1.msgpack  binary frames, one msgpack map each (the default)
//   tablehub.v1.json     text frames, one JSON object each
//
// Only this module touches msgpack.

import { decode, encode } from '../vendor/msgpack/index.mjs';

export const MSGPACK = 'tablehub.v1.msgpack';
export const JSON_SUBPROTOCOL = 'tablehub.v1.json';

/** A frame that is not valid for the negotiated subprotocol. */
export class DecodeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DecodeError';
  }
}

const msgpackCodec = Object.freeze({
  name: MSGPACK,
  binary: true,
  encode(msg) {
    return encode(msg, { ignoreUndefined: true });
  },
  decode(frame) {
    if (typeof frame === 'string') throw new DecodeError('text frame on the msgpack subprotocol');
    try {
      return decode(frame instanceof ArrayBuffer ? new Uint8Array(frame) : frame);
    } catch (err) {
      throw new DecodeError(`invalid msgpack: ${err.message}`);
    }
  },
});

const textDecoder = new TextDecoder('utf-8', { fatal: true });

const jsonCodec = Object.freeze({
  name: JSON_SUBPROTOCOL,
  binary: false,
  encode(msg) {
    return JSON.stringify(msg);
  },
  decode(frame) {
    const text = typeof frame === 'string' ? frame : textDecoder.decode(frame);
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new DecodeError(`invalid JSON: ${err.message}`);
    }
  },
});

export const CODECS = Object.freeze({ [MSGPACK]: msgpackCodec, [JSON_SUBPROTOCOL]: jsonCodec });

/** The codec of a subprotocol name; throws on an unknown one. */
export function codecFor(subprotocol) {
  const codec = CODECS[subprotocol];
  if (!codec) throw new Error(`unknown subprotocol ${subprotocol} (known: ${Object.keys(CODECS).join(', ')})`);
  return codec;
}
