import { generate } from 'selfsigned';

/**
 * A self-signed certificate for 127.0.0.1 and localhost. It is its own CA
 * (basicConstraints cA, keyCertSign), so clients can trust it by passing its
 * PEM as `ca`. Async because selfsigned 5 only generates asynchronously.
 */
export async function generateSelfSignedCert(): Promise<{ key: string; cert: string }> {
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000);
  const notAfterDate = new Date(notBeforeDate.getTime() + 30 * 24 * 60 * 60 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
