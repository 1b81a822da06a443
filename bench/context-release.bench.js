// Context release of a ~10 MB JSON payload against two baselines measured in the same run: plain JSON.parse +
// JSON.stringify of the whole text, and the same projection done by hand (plain JS, no checks: walk the parsed
// payload, copy only the projected paths in canonical key order, redact the e-mail, JSON.stringify the smaller
// projection). Every variant is timed as parse + release + stringify of the released payload. Target (issue 6):
// projection + redaction without detectors >= 0.50x the JSON baseline's throughput; the hand projection says what
// Verdict's checks, canonical ordering and evidence cost over the same work. Numbers are reported, not asserted.
import {
  ContextReleaser,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  ReleasePolicy,
  ScanMode,
  Source,
  Trust,
} from '@verdict/nestjs';
import { table, target } from './report.js';
import { fmt, median } from './stats.js';

const TARGET_BYTES = 10_000_000;
const RUNS = 11;

// Deterministic data: mulberry32, seeded.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(0x5eed);
const pick = (list) => list[Math.floor(rand() * list.length)];
const int = (min, max) => min + Math.floor(rand() * (max - min + 1));
const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'Donald',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Knuth',
];
const STREETS = ['Main St', 'High St', 'Station Rd', 'Church Lane', 'Park Ave', 'Mill Road'];
const CITIES = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Greenville', 'Kingston'];
const STATUSES = ['placed', 'paid', 'shipped', 'delivered', 'returned', 'cancelled'];
const WORDS =
  'please leave the parcel at the back door customer asked for gift wrapping delivery window after five pm fragile items inside'
    .concat(' call before arrival if nobody answers ring twice')
    .split(' ');
const sentence = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
const phone = () => `+1 ${int(201, 989)} 555 ${String(int(0, 9999)).padStart(4, '0')}`;

function note() {
  const roll = rand();
  if (roll < 0.15)
    return `${sentence(int(6, 14))}, reach me at ${pick(FIRST).toLowerCase()}.${int(1, 999)}@example.org instead.`;
  if (roll < 0.3) return `${sentence(int(6, 14))}; backup number ${phone()}.`;
  return `${sentence(int(8, 24))}.`;
}

function customer(i) {
  const first = pick(FIRST);
  const last = pick(LAST);
  return {
    id: `C${String(i).padStart(7, '0')}`,
    name: `${first} ${last}`,
    email: `${first}.${last}${i}@example.com`.toLowerCase(),
    phone: phone(),
    address: {
      street: `${int(1, 400)} ${pick(STREETS)}`,
      city: pick(CITIES),
      zip: String(int(10000, 99999)),
      country: 'US',
    },
    orders: Array.from({ length: int(1, 6) }, (_, j) => ({
      id: `ORD-${i}-${j}`,
      status: pick(STATUSES),
      total: int(100, 99999) / 100,
      placedAt: new Date(Date.UTC(2024, 0, 1) + int(0, 365 * 86400) * 1000).toISOString(),
      notes: note(),
    })),
  };
}

const customers = [];
for (let i = 0, bytes = 16; bytes < TARGET_BYTES; i++) {
  customers.push(customer(i));
  bytes += JSON.stringify(customers[i]).length + 1;
}
const text = JSON.stringify({ customers });
const megabytes = Buffer.byteLength(text) / 1e6;

// One releaser per variant: same source and destination, each with its own policy. Post-scrub validation only runs
// the detectors whose class the route does NOT allow: a Pii route watches CARD/IBAN/SSN; the strict (Internal-only)
// route watches all six, so its notes must be scanned first or the release is denied on the first e-mail.
const source = Source.application('customer-list');
const destination = Destination.connection('ollama-local', 'local-machine');
const ONLY = [
  'customers.*.id',
  'customers.*.name',
  'customers.*.email',
  'customers.*.orders.*.status',
  'customers.*.orders.*.notes',
];
const NOTES = ['customers.*.orders.*.notes'];
const releaser = (classification, configure) => {
  const policy = configure(
    ReleasePolicy.route(source, destination).allow({ classes: [classification], trust: [Trust.Trusted] }),
  );
  const instance = new ContextReleaser({ policies: [policy], recorder: new InMemoryEvidenceRecorder(100) });
  return (payload) =>
    instance
      .release(payload)
      .source(source)
      .trust(Trust.Trusted)
      .classify(classification)
      .only(ONLY)
      .redact(['customers.*.email']);
};
const noDetectors = releaser(DataClass.Pii, (policy) => policy.detectWith([]));
const piiRoute = releaser(DataClass.Pii, (policy) => policy);
const strictRoute = releaser(DataClass.Internal, (policy) => policy);

const timed = (release) => async () => {
  const result = await release(JSON.parse(text)).to(destination);
  if (!result.permitted) throw new Error(`release denied: ${result.reason}`);
  return result.json;
};
// The same projection by hand: what `.only(ONLY).redact(['customers.*.email'])` releases, keys in the order the
// canonical text has them (sorted), and no checks at all (no JSON validation, no prototype keys, no evidence).
const byHand = ({ customers: list }) => ({
  customers: list.map(({ email, id, name, orders }) => ({
    email: email && '[REDACTED]',
    id,
    name,
    orders: orders.map(({ notes, status }) => ({ notes, status })),
  })),
});
const variants = {
  'JSON.parse + JSON.stringify': async () => JSON.stringify(JSON.parse(text)),
  'hand projection + redact (plain JS)': async () => JSON.stringify(byHand(JSON.parse(text))),
  '1. project + redact, no detectors': timed(noDetectors),
  '2. + validation (Pii route: CARD/IBAN/SSN)': timed(piiRoute),
  '3. + scan notes (redact) + validation': timed((payload) => piiRoute(payload).scan(NOTES, { mode: ScanMode.Redact })),
  '4. + scan notes, strict route (6 detectors)': timed((payload) =>
    strictRoute(payload).scan(NOTES, { mode: ScanMode.Redact }),
  ),
};

// Sanity: the variants do what they claim before they are timed.
const names = Object.keys(variants);
const outputs = [];
for (const fn of Object.values(variants)) outputs.push(await fn());
const [, hand, v1, v2, v3, v4] = outputs;
const first = JSON.parse(v1).customers[0];
if (Object.keys(first).sort().join() !== 'email,id,name,orders' || first.email !== '[REDACTED]' || 'phone' in first)
  throw new Error('projection is not what it claims');
if (hand !== v1) throw new Error('the hand projection does not release the same text as variant 1');
if (v1 !== v2) throw new Error('validation changed the payload');
if (!v3.includes('[REDACTED] instead.') || v3.includes('@example.org') || v3 !== v4)
  throw new Error('scan did not redact notes');

// Interleaved runs (one warm-up above), median wall time per variant.
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const [name, fn] of Object.entries(variants)) {
    const start = process.hrtime.bigint();
    await fn();
    samples[name].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}
const ms = Object.fromEntries(names.map((name) => [name, median(samples[name])]));
const baseline = ms[names[0]];
const handBaseline = ms[names[1]];
const variant1 = ms[names[2]];

table(
  `Context release of ${fmt(megabytes, 2)} MB (${customers.length} customers; projection ${fmt(Buffer.byteLength(v1) / 1e6, 2)} MB), median of ${RUNS} runs after 1 warm-up; in-memory evidence`,

  Object.fromEntries(
    names.map((name) => [
      name,
      {
        median_ms: fmt(ms[name]),
        'MB/s': fmt(megabytes / (ms[name] / 1000)),
        'vs JSON baseline': fmt(baseline / ms[name], 2),
        'vs hand projection': fmt(handBaseline / ms[name], 2),
      },
    ]),
  ),
);
for (const name of names.slice(3)) {
  console.log(
    `detector cost ${name.slice(0, 2)} vs 1.: +${fmt(ms[name] - variant1)} ms (${fmt(ms[name] / variant1, 2)}x variant 1)`,
  );
}
console.log(
  `variant 1 vs the hand projection: ${fmt(handBaseline / variant1, 2)}x its throughput (+${fmt(variant1 - handBaseline)} ms for checks, canonical order and evidence)`,
);
console.log(
  target(
    `variant 1 >= 0.50x the JSON baseline's throughput (${fmt(baseline / variant1, 2)}x)`,
    baseline / variant1 >= 0.5,
  ),
);
