import { analyzeInfluence, ProvenanceWindow, labelContent, ProvenanceSource, Trust, canonicalForm } from '@verdict/nestjs';
const texts = ['5\nDentist Appointment\n2024-05-18T09:00\n2024-05-18T10:00', 'confirmed\n5\nDentist Appointment', 'x 5 y', '5'];
for (const t of texts) {
  const w = ProvenanceWindow.of([labelContent(t, ProvenanceSource.application('w'), Trust.Trusted)]);
  console.log(JSON.stringify(canonicalForm(t)), analyzeInfluence(w, { event_id: '5' }).derivation);
}
