//! What a code review looks at: the diff (or files) under review, computed with a hardened git subprocess.
