//! Which third-party test dependencies are installed (see `.ci/install-test-deps`).
//! Tests that drive them are ignored, with the reason, where they are missing —
//! except under CI, where they run and fail, saying how to install them.
include!(".ci/test_deps_cfg.rs");
