/** Base64 text, as a provider's `data` may hold a text file's bytes. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a text file's bytes — given as bytes, or as base64 — when they are UTF-8; `undefined` otherwise (not
 * base64, not UTF-8: not text a model reads).
 *
 * @example utf8Text(Buffer.from('Pay DE89…').toString('base64')) === 'Pay DE89…'
 */
export function utf8Text(bytes: string | ArrayBufferView): string | undefined {
  if (typeof bytes === 'string' && !BASE64.test(bytes)) return undefined;
  const view = typeof bytes === 'string' ? Buffer.from(bytes, 'base64') : bytes;
  try {
    return utf8.decode(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  } catch {
    return undefined;
  }
}
