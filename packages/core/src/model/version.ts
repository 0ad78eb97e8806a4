/** Version of the canonical model. Bumped on any incompatible change; written into `run-start`. */
export const CANONICAL_VERSION = 2;
