//! The work of a code review planned a part at a time (see [`Planner`]),
//! and the cheap outline of all of it that the cost estimate reads before
//! the first part is sent.

use crit_core::Location;

use super::checks::screening;
use super::work::{FileWork, PartLimits, Unit, Work, numbered_len, without_blob_ids};
use crate::engine::hunk_cache::{self, Hunks};
use crit_project::scope::Change;
use crit_project::scope::chunk;
use crit_project::scope::units::{self, FilePatch, HunkText};

/// Cuts `change` into the work of its review, a part at a time: files are
/// taken in the order parts are packed (relatives together), each screened,
/// keyed and looked up in the cache as it comes, and a part is handed out as
/// soon as the next one starts, so the first part is reviewed while the rest
/// are prepared. `raw_patch`: the change's patch before redaction, for the
/// cache keys. `cache`: the hunk cache as this review read it and the base of
/// this review's keys. The work is whole once [`Planner::next_part`] returned
/// `None` (or after [`Planner::finish`]).
pub(super) struct Planner<'a> {
    change: &'a Change,
    cache: Option<(&'a Hunks, &'a str)>,
    limits: PartLimits,
    /// The change's sections, redacted and raw, taken as each is planned.
    sections: Vec<Option<FilePatch>>,
    raw: Vec<Option<FilePatch>>,
    /// Groups of relatives (indexes into `sections`), in packing order.
    groups: std::vec::IntoIter<Vec<usize>>,
    packer: chunk::Packer,
    /// The whole change's parts as estimated before planning.
    outline: Outline,
    /// Each piece's units, by the id the packer knows it by.
    pieces: Vec<Vec<usize>>,
    work: Work,
    /// Parts handed out so far.
    given: usize,
    done: bool,
}

impl<'a> Planner<'a> {
    pub(super) fn new(
        change: &'a Change,
        raw_patch: &str,
        cache: Option<(&'a Hunks, &'a str)>,
        limits: PartLimits,
    ) -> Self {
        let mut raw_change = change.clone();
        raw_change.patch = raw_patch.to_string();
        let raw: Vec<Option<FilePatch>> = units::split(&raw_change).into_iter().map(Some).collect();
        let sections: Vec<Option<FilePatch>> = units::split(change).into_iter().map(Some).collect();
        // The order chunk::pack gives: relatives together, then by path, then
        // as git listed them.
        let mut order: Vec<((String, String), String, usize)> = sections
            .iter()
            .enumerate()
            .filter_map(|(n, fp)| {
                let changed = fp.as_ref()?.file.and_then(|i| change.files.get(i))?;
                let path = change.path_from_root(&changed.path).to_string();
                Some((chunk::relation(&path), path, n))
            })
            .collect();
        order.sort();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut last: Option<&(String, String)> = None;
        for (rel, _, n) in &order {
            match groups.last_mut() {
                Some(g) if last == Some(rel) => g.push(*n),
                _ => groups.push(vec![*n]),
            }
            last = Some(rel);
        }
        let outline = outline(change, &raw, &groups, cache, limits);
        Planner {
            outline,
            change,
            cache,
            limits,
            sections,
            raw,
            groups: groups.into_iter(),
            packer: chunk::Packer::new(limits.part_bytes),
            pieces: Vec::new(),
            work: Work::default(),
            given: 0,
            done: false,
        }
    }

    /// The next part to review (an index into [`Work::parts`]), planning as
    /// many files as it takes; `None` once every part within `max_parts` was
    /// handed out and the whole change is planned.
    pub(super) fn next_part(&mut self) -> Option<usize> {
        loop {
            if self.given < self.work.parts.len() {
                self.given += 1;
                tracing::debug!(part = self.given, "part planned");
                return Some(self.given - 1);
            }
            if self.done {
                return None;
            }
            match self.groups.next() {
                Some(group) => self.plan_group(&group),
                None => self.finish(),
            }
        }
    }

    /// Whether the review has more than one part: part `i` has been handed
    /// out and another one is planned or being filled within `max_parts`.
    pub(super) fn several(&self, i: usize) -> bool {
        i > 0
            || (self.limits.max_parts > 1
                && (self.work.parts.len() > 1 || (!self.done && self.packer.is_filling())))
    }

    /// The parts as estimated before planning, for the cost estimate.
    pub(super) fn outline(&self) -> &Outline {
        &self.outline
    }

    pub(super) fn work(&self) -> &Work {
        &self.work
    }

    /// Plans what is left, and hands over the whole work.
    pub(super) fn into_work(mut self) -> Work {
        self.finish();
        self.work
    }

    /// Plans every file not planned yet; the last part closes.
    pub(super) fn finish(&mut self) {
        if self.done {
            return;
        }
        while let Some(group) = self.groups.next() {
            self.plan_group(&group);
        }
        self.packer.finish();
        self.take_parts();
        self.add_unlisted();
        self.done = true;
        tracing::debug!(parts = self.work.parts.len(), "the work plan is complete");
    }

    /// One group of relatives: each file cut into units, the units the cache
    /// answers set aside, the rest packed.
    fn plan_group(&mut self, group: &[usize]) {
        let mut pieces = Vec::new();
        for &n in group {
            let (Some(fp), raw) = (
                self.sections.get_mut(n).and_then(Option::take),
                self.raw.get_mut(n).and_then(Option::take),
            ) else {
                continue;
            };
            let Some(file) = self.plan_file(fp, raw) else {
                continue;
            };
            let todo = self.look_up(file);
            let f = &self.work.files[file];
            let sizes = todo
                .iter()
                .map(|&u| (u, numbered_len(&self.work.units[u].hunk)));
            pieces.extend(file_pieces(f.header.len(), sizes, self.limits.part_bytes));
        }
        // A piece's id is its index in `self.pieces`: the packer says which
        // pieces make a part.
        let base = self.pieces.len();
        let ids = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (base + i, p.0))
            .collect();
        self.pieces.extend(pieces.into_iter().map(|p| p.1));
        self.packer.group(ids);
        self.take_parts();
    }

    /// The parts the packer closed, as units; those over `max_parts` left out.
    fn take_parts(&mut self) {
        while let Some(ids) = self.packer.next_part() {
            let units: Vec<usize> = ids
                .iter()
                .flat_map(|&i| {
                    self.pieces
                        .get_mut(i)
                        .map(std::mem::take)
                        .unwrap_or_default()
                })
                .collect();
            match self.work.parts.len() < self.limits.max_parts {
                true => self.work.parts.push(units),
                false => self.work.over.push(units),
            }
        }
    }

    /// The units of `file` to review; those the cache answers are set aside.
    fn look_up(&mut self, file: usize) -> Vec<usize> {
        let mut todo = Vec::new();
        let work = &mut self.work;
        for &id in &work.files[file].units {
            let hit = match (self.cache, &work.units[id].key) {
                (Some((c, _)), Some(k)) => c.load(k),
                _ => None,
            };
            match hit {
                Some(hit) => {
                    work.cached_cost_usd = if work.cached.is_empty() {
                        hit.cost_usd
                    } else {
                        crit_core::usage::add_cost(work.cached_cost_usd, hit.cost_usd)
                    };
                    work.cached.push(id);
                }
                None => todo.push(id),
            }
        }
        todo
    }

    /// Files git listed but whose patch section is missing (output over its
    /// cap) still belong to the change. (A set: a change of thousands of
    /// files must not compare each with every other.)
    fn add_unlisted(&mut self) {
        let change = self.change;
        let placed: std::collections::HashSet<&str> = self
            .work
            .files
            .iter()
            .map(|w| w.changed.path.as_str())
            .collect();
        let missing: Vec<FileWork> = change
            .files
            .iter()
            .filter(|f| !placed.contains(f.path.as_str()))
            .map(|f| FileWork {
                path: change.path_from_root(&f.path).to_string(),
                changed: f.clone(),
                header: String::new(),
                units: Vec::new(),
            })
            .collect();
        self.work.files.extend(missing);
    }

    /// One file's section: screened, cut into units (a hunk bigger than a
    /// part in pieces), each unit keyed for the cache unless redaction or
    /// screening touched it. Its index in [`Work::files`].
    fn plan_file(&mut self, mut fp: FilePatch, raw: Option<FilePatch>) -> Option<usize> {
        let (change, cache, limits) = (self.change, self.cache, self.limits);
        let work = &mut self.work;
        let changed = fp.file.and_then(|i| change.files.get(i)).cloned()?;
        let path = change.path_from_root(&changed.path).to_string();
        let header_before = fp.header.clone();
        let before: Vec<String> = fp.hunks.iter().map(|h| h.text.clone()).collect();
        let screened = screening::screen_file(&path, &mut fp.header, &mut fp.hunks);
        let flagged: Vec<u32> = screened
            .findings
            .iter()
            .filter_map(|f| f.location.as_ref().and_then(Location::start_line))
            .collect();
        let whole_file = fp.header != header_before
            || screened
                .findings
                .iter()
                .any(|f| f.location.as_ref().and_then(Location::start_line).is_none());
        work.screened.extend(screened);
        // The same section before redaction: same files, same hunks, as
        // redaction keeps every line in its place.
        let raw = raw.filter(|r| r.file == fp.file && r.hunks.len() == fp.hunks.len());
        let file = work.files.len();
        let mut ids = Vec::new();
        // Leave room for the line numbers the prompt adds (about 8 bytes a line).
        let max_hunk = limits.part_bytes.saturating_mul(3) / 4;
        for (i, h) in fp.hunks.iter().enumerate() {
            let raw_hunk = raw
                .as_ref()
                .and_then(|r| r.hunks.get(i))
                .filter(|r| r.hunk == h.hunk);
            let changed_text = raw_hunk.is_none_or(|r| r.text != before[i]) || h.text != before[i];
            let pieces = units::split_hunk(h, max_hunk);
            let raw_pieces = raw_hunk.map(|r| units::split_hunk(r, max_hunk));
            let whole = pieces.len() == 1;
            for (j, piece) in pieces.into_iter().enumerate() {
                let range = piece.new_range();
                let tainted =
                    changed_text || whole_file || flagged.iter().any(|l| range.contains(l));
                // A split hunk's pieces are cached only when the hunk was
                // never touched: the raw pieces then match the sent ones.
                let key = match (cache, &raw_pieces) {
                    (Some((_, base)), Some(raw)) if !tainted && (whole || !changed_text) => raw
                        .get(j)
                        .filter(|r| r.hunk == piece.hunk)
                        .map(|r| hunk_cache::key(base, &path, r.without_numbers())),
                    _ => None,
                };
                ids.push(work.units.len());
                work.units.push(Unit {
                    file,
                    hunk: piece,
                    key,
                    tainted,
                });
            }
        }
        // A rename, a mode change or an empty file: its header is the change.
        if fp.hunks.is_empty() && !changed.binary && !fp.header.trim().is_empty() {
            ids.push(work.units.len());
            work.units.push(Unit {
                file,
                hunk: HunkText {
                    hunk: crit_project::scope::Hunk {
                        old_start: 0,
                        old_lines: 0,
                        new_start: 0,
                        new_lines: 0,
                        added: Vec::new(),
                    },
                    text: String::new(),
                },
                key: None,
                tainted: false,
            });
        }
        work.files.push(FileWork {
            path,
            changed,
            header: without_blob_ids(&fp.header),
            units: ids,
        });
        Some(file)
    }
}

/// A file's units to review as pieces of at most `budget` bytes, `(bytes,
/// units)`: split at hunk boundaries when the file alone is too big.
/// `units`: `(unit, bytes)` in patch order.
pub(super) fn file_pieces(
    header: usize,
    units: impl Iterator<Item = (usize, usize)>,
    budget: usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut pieces = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut size = header;
    for (u, bytes) in units {
        if !run.is_empty() && size + bytes > budget {
            pieces.push((size, std::mem::take(&mut run)));
            size = header;
        }
        run.push(u);
        size += bytes;
    }
    if !run.is_empty() {
        pieces.push((size, run));
    }
    pieces
}

/// The parts a change will have, estimated without screening it: its
/// sections as git gave them, cut and packed as [`Planner`] does, the hunks
/// the cache holds left out. (Screening and redaction change a little text,
/// and a hunk they touch is never a cache hit: the plan may differ by that.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Outline {
    /// Bytes of each part to send, within `max_parts`.
    pub part_bytes: Vec<usize>,
    /// Added lines in those parts.
    pub added_lines: usize,
}

fn outline(
    change: &Change,
    raw: &[Option<FilePatch>],
    groups: &[Vec<usize>],
    cache: Option<(&Hunks, &str)>,
    limits: PartLimits,
) -> Outline {
    let max_hunk = limits.part_bytes.saturating_mul(3) / 4;
    let mut packer = chunk::Packer::new(limits.part_bytes);
    // Per piece: its bytes and added lines.
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut added: Vec<usize> = Vec::new();
    for group in groups {
        let mut ids = Vec::new();
        for fp in group.iter().filter_map(|&n| raw.get(n)?.as_ref()) {
            let Some(changed) = fp.file.and_then(|i| change.files.get(i)) else {
                continue;
            };
            let path = change.path_from_root(&changed.path);
            let mut sizes = Vec::new();
            for h in &fp.hunks {
                for piece in units::split_hunk(h, max_hunk) {
                    let hit = cache.is_some_and(|(c, base)| {
                        c.load(&hunk_cache::key(base, path, piece.without_numbers()))
                            .is_some()
                    });
                    if !hit {
                        sizes.push((added.len(), numbered_len(&piece)));
                        added.push(piece.hunk.added.len());
                    }
                }
            }
            let header = without_blob_ids(&fp.header).len();
            for (bytes, units) in file_pieces(header, sizes.into_iter(), limits.part_bytes) {
                let lines = units.iter().filter_map(|u| added.get(*u)).sum();
                ids.push((pieces.len(), bytes));
                pieces.push((bytes, lines));
            }
        }
        packer.group(ids);
    }
    packer.finish();
    let mut out = Outline::default();
    while let Some(part) = packer.next_part() {
        if out.part_bytes.len() >= limits.max_parts {
            break;
        }
        let of = |i: &usize| pieces.get(*i).copied().unwrap_or_default();
        out.part_bytes.push(part.iter().map(|i| of(i).0).sum());
        out.added_lines += part.iter().map(|i| of(i).1).sum::<usize>();
    }
    out
}
