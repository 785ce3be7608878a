//! Suppressions: findings a team dismissed, kept dismissed across runs (`.crit/suppressions.yaml`).
