// The storefront live pack as a `verdict-eval live` suite module (opt-in; needs VERDICT_LIVE_* set):
//   npx verdict-eval live libs/storefront/dist/evaluation/live/storefront-live-pack.suite.js --trials 30 --control
import { storefrontLivePack } from './storefront-live-pack.js';

export default storefrontLivePack;
