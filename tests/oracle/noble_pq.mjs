// Test oracle: answers ML-KEM-768 / ML-DSA-65 requests with @noble/post-quantum, an implementation
// independent of Veil's. Reads a JSON array of requests on stdin, writes a JSON array of answers.
// All randomness is passed in by the caller, so both sides compute the same deterministic outputs.
import { ml_kem768 } from '@noble/post-quantum/ml-kem.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

const hex = (b) => Buffer.from(b).toString('hex');
const bin = (h) => new Uint8Array(Buffer.from(h, 'hex'));

function answer(r) {
  switch (r.op) {
    case 'mlkem_keygen': {
      const { publicKey, secretKey } = ml_kem768.keygen(bin(r.seed));
      return { ek: hex(publicKey), dk: hex(secretKey) };
    }
    case 'mlkem_encaps': {
      const { cipherText, sharedSecret } = ml_kem768.encapsulate(bin(r.ek), bin(r.m));
      return { ct: hex(cipherText), ss: hex(sharedSecret) };
    }
    case 'mlkem_decaps':
      return { ss: hex(ml_kem768.decapsulate(bin(r.ct), bin(r.dk))) };
    case 'mldsa_keygen': {
      const { publicKey, secretKey } = ml_dsa65.keygen(bin(r.seed));
      return { pk: hex(publicKey), sk: hex(secretKey) };
    }
    case 'mldsa_sign': {
      const opts = { context: bin(r.ctx), extraEntropy: r.rnd === '' ? false : bin(r.rnd) };
      return { sig: hex(ml_dsa65.sign(bin(r.msg), bin(r.sk), opts)) };
    }
    case 'mldsa_verify':
      return { ok: ml_dsa65.verify(bin(r.sig), bin(r.msg), bin(r.pk), { context: bin(r.ctx) }) };
    default:
      throw new Error(`unknown op ${r.op}`);
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => {
  const requests = JSON.parse(input);
  process.stdout.write(JSON.stringify(requests.map(answer)));
});
