//! The terminal escaping of [`crate::printable`] under its first name, for
//! callers not yet moved to [`Printable`](crate::printable::Printable).

use std::borrow::Cow;

use crate::printable::{Dest, Printable};

/// `text` escaped for a terminal: [`Printable::new`] with [`Dest::Terminal`].
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let p = Printable::new(text, Dest::Terminal);
    if p.as_str() == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(p.into_string())
    }
}
