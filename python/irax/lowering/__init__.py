"""irax -> StableHLO conversion (per-op rules live on the op classes)."""
