//! Sessions under `.crit/sessions/` and the audit log.
