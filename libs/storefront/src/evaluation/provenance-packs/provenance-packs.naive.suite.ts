// The provenance packs' naive arm as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/provenance-packs/provenance-packs.naive.suite.js --out report.json
import { PackArm } from './pack-arm.js';
import { provenancePacks } from './provenance-packs.js';

export default () => provenancePacks(PackArm.Naive);
