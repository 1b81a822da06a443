/**
 * Why a release was permitted or denied. Internal: evidence and events carry it, the model never does.
 * `transform_expanded` and `detector_fired` are followed by `:` and the transformer name or detector label.
 */
export const ReleaseReason = {
  Released: 'released',
  RouteNotRegistered: 'route_not_registered',
  RoutePermitsNothing: 'route_permits_nothing',
  TrustNotAllowed: 'trust_not_allowed',
  ClassNotAllowed: 'class_not_allowed',
  TransformExpanded: 'transform_expanded',
  DetectorFired: 'detector_fired',
} as const;

export type ReleaseReason = (typeof ReleaseReason)[keyof typeof ReleaseReason];
