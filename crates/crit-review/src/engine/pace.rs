//! How many requests of one review go out at once: eight to start, fewer
//! when the provider pushes back (a 429 halves it; the requests or tokens
//! its rate-limit headers say are left cap it), one more after each round
//! of requests done while the headers show room, never more than [`MAX`].
//! A backend without such headers stays at the start.

use std::sync::{Arc, Mutex};

use crit_llm::Headroom;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Requests in flight at first.
pub(crate) const START: usize = 8;
/// Requests in flight at most, however much room the provider shows.
pub(crate) const MAX: usize = 32;

#[derive(Debug)]
struct State {
    /// How many may be in flight now.
    limit: usize,
    /// Permits to drop instead of returning, to bring the semaphore down
    /// to `limit`.
    debt: usize,
    /// 429s counted when last adjusted.
    seen_429: u64,
    in_flight: usize,
    /// The most in flight at once.
    peak: usize,
    /// Requests done since the limit last changed: it grows only after a
    /// whole round without trouble.
    calm: usize,
}

/// Paces a review's requests by the provider's rate-limit headers.
#[derive(Debug, Clone)]
pub(crate) struct Pace {
    sem: Arc<Semaphore>,
    state: Arc<Mutex<State>>,
}

/// The right to have one request in flight; hand it back with
/// [`Pace::done`].
#[derive(Debug)]
pub(crate) struct Slot(OwnedSemaphorePermit);

impl Pace {
    pub(crate) fn new(start: usize) -> Pace {
        let start = start.clamp(1, MAX);
        Pace {
            sem: Arc::new(Semaphore::new(start)),
            state: Arc::new(Mutex::new(State {
                limit: start,
                debt: 0,
                seen_429: 0,
                in_flight: 0,
                peak: 0,
                calm: 0,
            })),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for room for one more request; `None` once the pace is closed
    /// (never: it is not closed).
    pub(crate) async fn slot(&self) -> Option<Slot> {
        let permit = self.sem.clone().acquire_owned().await.ok()?;
        let mut s = self.state();
        s.in_flight += 1;
        s.peak = s.peak.max(s.in_flight);
        Some(Slot(permit))
    }

    /// One request is done; `headroom` is what the provider said since.
    pub(crate) fn done(&self, slot: Slot, headroom: Option<Headroom>) {
        let mut s = self.state();
        s.in_flight = s.in_flight.saturating_sub(1);
        if let Some(h) = headroom {
            let mut target = next_limit(s.limit, s.seen_429, &h);
            s.seen_429 = h.rate_limited;
            if target > s.limit && s.calm < s.limit {
                target = s.limit;
            }
            s.calm = if target == s.limit { s.calm + 1 } else { 0 };
            if target > s.limit {
                let more = target - s.limit;
                let paid = more.min(s.debt);
                s.debt -= paid;
                self.sem.add_permits(more - paid);
            } else {
                s.debt += s.limit - target;
            }
            s.limit = target;
        }
        if s.debt > 0 {
            s.debt -= 1;
            slot.0.forget();
        }
    }

    /// How many may be in flight now, and the most that were.
    pub(crate) fn stats(&self) -> (usize, usize) {
        let s = self.state();
        (s.limit, s.peak)
    }
}

/// The next limit: halved on a new 429, capped by the requests left, one
/// less when a tenth of the tightest limit is left, one more when over half
/// of it is.
fn next_limit(limit: usize, seen_429: u64, h: &Headroom) -> usize {
    if h.rate_limited > seen_429 {
        return (limit / 2).max(1);
    }
    let mut next = limit;
    match h.free_share() {
        Some(free) if free < 0.1 => next = limit.saturating_sub(1),
        Some(free) if free > 0.5 => next = limit + 1,
        _ => {}
    }
    if let Some(left) = h.requests_remaining {
        next = next.min(usize::try_from(left).unwrap_or(usize::MAX).max(1));
    }
    next.clamp(1, MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(remaining: u64, limit: u64, rate_limited: u64) -> Headroom {
        Headroom {
            requests_limit: Some(limit),
            requests_remaining: Some(remaining),
            rate_limited,
            ..Headroom::default()
        }
    }

    #[test]
    fn backs_off_on_429_and_on_little_left_and_grows_with_room() {
        assert_eq!(next_limit(8, 0, &room(40, 50, 1)), 4);
        assert_eq!(next_limit(8, 1, &room(40, 50, 1)), 9);
        assert_eq!(next_limit(8, 0, &room(3, 50, 0)), 3);
        assert_eq!(next_limit(8, 0, &room(20, 50, 0)), 8);
        assert_eq!(next_limit(1, 0, &room(0, 50, 3)), 1);
        assert_eq!(next_limit(MAX, 0, &room(1000, 1000, 0)), MAX);
        // No headers: as it was.
        assert_eq!(next_limit(8, 0, &Headroom::default()), 8);
    }

    #[tokio::test]
    async fn the_semaphore_follows_the_limit() {
        let pace = Pace::new(START);
        let mut slots = Vec::new();
        for _ in 0..START {
            slots.push(pace.slot().await.unwrap());
        }
        assert_eq!(pace.stats(), (8, 8));
        // A 429: down to 4 at once; the slots handed back pay the
        // difference, and the limit grows again only after a calm round.
        for slot in slots.drain(..) {
            pace.done(slot, Some(room(40, 50, 1)));
        }
        assert_eq!(pace.stats().0, 5);
        assert_eq!(pace.sem.available_permits(), 5);
        for _ in 0..20 {
            let s = pace.slot().await.unwrap();
            pace.done(s, Some(room(50, 50, 1)));
        }
        let (limit, _) = pace.stats();
        assert!(limit > 5 && limit < 10, "{limit}");
        assert_eq!(pace.sem.available_permits(), limit);
        // Few requests left: capped there.
        let s = pace.slot().await.unwrap();
        pace.done(s, Some(room(2, 50, 1)));
        assert_eq!(pace.stats().0, 2);
    }
}
