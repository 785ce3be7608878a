//! Cache entries that reveal nothing to whoever reads the cache directory:
//! the body is XORed with a SHA-256 keystream (counter mode) and tagged with
//! HMAC-SHA-256, under a key the caller derives from the cached text itself
//! (a prompt, a hunk of code), so only someone who already has that text can
//! open it. An entry that does not open (corrupt, foreign, another version)
//! is `None`: a cache miss. The format is byte for byte the one crit wrote
//! before it moved onto `ring`, so existing entries still open.

use ring::hmac;

use super::hash::Sha256;

fn keystream_xor(data: &mut [u8], k: &[u8; 32]) {
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let mut h = Sha256::new();
        h.update(k).update((i as u64).to_le_bytes());
        let block = h.finish();
        for (b, s) in chunk.iter_mut().zip(block.iter()) {
            *b ^= s;
        }
    }
}

/// `plain` sealed under `k`, behind `magic` (the format and its version).
pub fn seal_box(magic: &[u8], plain: &[u8], k: &[u8; 32]) -> Vec<u8> {
    let mut body = plain.to_vec();
    keystream_xor(&mut body, k);
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, k), &body);
    let mut out = Vec::with_capacity(magic.len() + 32 + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(tag.as_ref());
    out.extend_from_slice(&body);
    out
}

/// The plain text of `sealed`, when it carries `magic` and opens under `k`.
pub fn open_box(magic: &[u8], sealed: &[u8], k: &[u8; 32]) -> Option<Vec<u8>> {
    let rest = sealed.strip_prefix(magic)?;
    if rest.len() < 32 {
        return None;
    }
    let (tag, body) = rest.split_at(32);
    hmac::verify(&hmac::Key::new(hmac::HMAC_SHA256, k), body, tag).ok()?;
    let mut plain = body.to_vec();
    keystream_xor(&mut plain, k);
    Some(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_what_it_sealed_and_nothing_else() {
        let k = [7u8; 32];
        let plain = b"a hunk of code that is longer than one block of keystream";
        let sealed = seal_box(b"CRIT1", plain, &k);
        assert!(
            !sealed.windows(4).any(|w| w == b"hunk"),
            "the body is hidden"
        );
        assert_eq!(open_box(b"CRIT1", &sealed, &k).as_deref(), Some(&plain[..]));
        assert_eq!(open_box(b"CRIT2", &sealed, &k), None);
        assert_eq!(open_box(b"CRIT1", &sealed, &[8u8; 32]), None);
        let mut flipped = sealed.clone();
        if let Some(last) = flipped.last_mut() {
            *last ^= 1;
        }
        assert_eq!(open_box(b"CRIT1", &flipped, &k), None);
        assert_eq!(open_box(b"CRIT1", b"CRIT1short", &k), None);
    }

    /// The same bytes as the hand-written HMAC-SHA-256 crit used before
    /// (RFC 2104 with a 32-byte key), so old cache entries still open.
    #[test]
    fn the_tag_is_rfc_2104_hmac_sha256() {
        let k = [0x0bu8; 32];
        let mut ipad = [0x36u8; 64];
        let mut opad = [0x5cu8; 64];
        for (i, b) in k.iter().enumerate() {
            ipad[i] ^= b;
            opad[i] ^= b;
        }
        let mut inner = Sha256::new();
        inner.update(ipad).update(b"body");
        let mut outer = Sha256::new();
        outer.update(opad).update(inner.finish());
        let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &k), b"body");
        assert_eq!(tag.as_ref(), &outer.finish()[..]);
    }
}
