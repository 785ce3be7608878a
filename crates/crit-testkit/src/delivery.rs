//! Byte-level delivery of a body: chunking, stalls and abrupt closes.

use std::io;

use axum::body::{Body, Bytes};
use futures_util::{StreamExt, stream};

use crate::reply::Delivery;

struct Cursor {
    body: Bytes,
    pos: usize,
    delivery: Delivery,
    stalled: bool,
    done: bool,
}

/// A body that sends `bytes` as `delivery` says. An abrupt close is an error
/// from the body stream, which makes hyper drop the connection mid-body
/// (no terminating chunk, or fewer bytes than `content-length`).
pub(crate) fn body(bytes: Vec<u8>, delivery: Delivery) -> Body {
    let plain =
        delivery.chunk.is_none() && delivery.drop_after.is_none() && delivery.stall.is_none();
    if plain {
        return Body::from(bytes);
    }
    let cursor = Cursor {
        body: Bytes::from(bytes),
        pos: 0,
        delivery,
        stalled: false,
        done: false,
    };
    Body::from_stream(stream::unfold(cursor, next_piece))
}

/// `head`, then `repeat` again and again until the client goes away.
pub(crate) fn endless(head: Vec<u8>, repeat: Vec<u8>) -> Body {
    let head = Bytes::from(head);
    let repeat = Bytes::from(repeat);
    let pieces = stream::once(async move { Ok::<_, io::Error>(head) }).chain(stream::unfold(
        repeat,
        |r| async move {
            // One piece per poll, so the server's other connections still run.
            tokio::task::yield_now().await;
            Some((Ok(r.clone()), r))
        },
    ));
    Body::from_stream(pieces)
}

async fn next_piece(mut c: Cursor) -> Option<(Result<Bytes, io::Error>, Cursor)> {
    if c.done {
        return None;
    }
    let len = c.body.len();
    if let Some((at, pause)) = c.delivery.stall
        && !c.stalled
        && c.pos >= at.min(len)
    {
        c.stalled = true;
        tokio::time::sleep(pause).await;
    }
    let limit = c.delivery.drop_after.map_or(len, |n| n.min(len));
    if c.pos >= limit {
        c.done = true;
        // Without a drop the body simply ends here.
        c.delivery.drop_after?;
        // Let hyper flush what was sent (the head included) before the abort,
        // or the client would see a reset before any response at all.
        tokio::task::yield_now().await;
        let abort = io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "crit-testkit: drop_after_bytes",
        );
        return Some((Err(abort), c));
    }
    let mut end = limit;
    if let Some(size) = c.delivery.chunk {
        end = end.min(c.pos + size);
        if c.pos > 0 {
            // Let hyper flush the previous piece on its own before this one.
            tokio::task::yield_now().await;
        }
    }
    if let Some((at, _)) = c.delivery.stall
        && !c.stalled
        && at > c.pos
    {
        end = end.min(at);
    }
    let piece = c.body.slice(c.pos..end);
    c.pos = end;
    Some((Ok(piece), c))
}
