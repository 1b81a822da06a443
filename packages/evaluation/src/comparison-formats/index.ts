export { ComparisonFormat, type ComparisonContext, describeChange } from './comparison-format.js';
export { renderComparison, isComparisonFormat } from './render-comparison.js';
