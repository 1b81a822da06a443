// The storefront attack pack as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/storefront-attack-pack.suite.js --out report.json
import { storefrontAttackPack } from './storefront-attack-pack.js';

export default storefrontAttackPack;
