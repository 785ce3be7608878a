//! Sealing and hashing, all on `ring`: the per-user HMAC key that seals what
//! crit later trusts ([`SealKey`]), cache entries that reveal nothing to
//! whoever reads the cache directory ([`seal_box`], [`open_box`]), and SHA-256.

mod cache_box;
mod hash;
mod key;

pub use cache_box::{open_box, seal_box};
pub use hash::{Sha256, hex, sha256, sha256_hex, unhex};
pub use key::{SealError, SealKey};
