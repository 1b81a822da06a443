import { InMemoryEvidenceRecorder } from '@verdict/nestjs';
const orig = InMemoryEvidenceRecorder.prototype.recordDecision;
const log = (r) => { if (r.disposition !== 'permit' || process.env.ALL) console.log('DECISION', r.capability ?? r.capabilityName, r.disposition, r.stage, r.reason ?? r.internalReason ?? JSON.stringify(r).slice(0,400)); };
InMemoryEvidenceRecorder.prototype.recordDecision = async function (r) { log(r); return orig.call(this, r); };
const origs = InMemoryEvidenceRecorder.prototype.recordDecisions;
InMemoryEvidenceRecorder.prototype.recordDecisions = async function (rs) { rs.forEach(log); return origs.call(this, rs); };
await import('/tmp/ws-dbg3.mjs');
