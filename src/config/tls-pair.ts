import { X509Certificate, createPrivateKey } from 'node:crypto';
import { ConfigError } from './load';
import { readNamedFile } from './yaml-file';

function readSetting(file: string, setting: string): Buffer {
  const read = readNamedFile(file);
  if ('problem' in read) throw new ConfigError([`web.tls.${setting}: ${read.problem}`]);
  return read.content;
}

/** What `parse` makes of a file, or a ConfigError with `problem` (OpenSSL's messages name no file: their first line follows it). */
function usable<T>(parse: () => T, problem: string): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError([`${problem} (${(error as Error).message.split('\n')[0] ?? 'invalid'})`]);
  }
}

/** Reads web.tls's pair with the configuration: a bad one is a configuration error naming the file, not an OpenSSL error at listen time. */
export function readTlsPair(tls: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const cert = readSetting(tls.certFile, 'certFile');
  const key = readSetting(tls.keyFile, 'keyFile');
  const certificate = usable(() => new X509Certificate(cert), `web.tls.certFile: ${tls.certFile} holds no usable PEM certificate`);
  const privateKey = usable(() => createPrivateKey(key), `web.tls.keyFile: ${tls.keyFile} holds no usable unencrypted PEM private key`);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError([`web.tls.keyFile: the key in ${tls.keyFile} does not belong to the certificate in ${tls.certFile}`]);
  }
  return { cert, key };
}
