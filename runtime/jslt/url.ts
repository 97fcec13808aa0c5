/**
 * `parse-url(url)`: splits a URL the way java.net.URL does (no normalisation: a URL without a
 * path has no `path` key). Output keys: scheme, userinfo, host, port, path, query, parameters
 * (each name → array of values, null for `a` or `a=`), fragment. Unknown schemes fail, as in Java.
 */
import { type JsltObject, type JsltValue, getKey, jsltError, newObject, setKey } from './values.js';

const KNOWN_SCHEMES = new Set(['http', 'https', 'ftp', 'file', 'jar', 'mailto']);
const URL_PATTERN = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function decodeFormComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw jsltError(`Can't parse ${text}: bad escape`);
  }
}

function queryParameters(query: string): JsltObject {
  const parameters = newObject();
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const name = equals > 0 ? decodeFormComponent(pair.slice(0, equals)) : pair;
    const value = equals > 0 && pair.length > equals + 1 ? decodeFormComponent(pair.slice(equals + 1)) : null;
    const existing = getKey(parameters, name);
    const values = Array.isArray(existing) ? existing : [];
    values.push(value);
    setKey(parameters, name, values);
  }
  return parameters;
}

export function parseUrl(url: string): JsltValue {
  const match = URL_PATTERN.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  if (!match || scheme === undefined || !KNOWN_SCHEMES.has(scheme)) throw jsltError(`Can't parse ${url}`);
  const [, , authority, path = '', query, fragment] = match;
  const result = newObject();
  let host = authority ?? '';
  let userinfo: string | undefined;
  const at = host.lastIndexOf('@');
  if (at !== -1) {
    userinfo = host.slice(0, at);
    host = host.slice(at + 1);
  }
  const port = /:(\d*)$/.exec(host);
  if (port) host = host.slice(0, port.index);
  if (host) setKey(result, 'host', host);
  if (port && port[1]) setKey(result, 'port', Number(port[1]));
  if (path) setKey(result, 'path', path);
  setKey(result, 'scheme', scheme);
  if (query) {
    setKey(result, 'query', query);
    setKey(result, 'parameters', queryParameters(query));
  }
  if (fragment !== undefined) setKey(result, 'fragment', fragment);
  if (userinfo) setKey(result, 'userinfo', userinfo);
  return result;
}
