//! The simulator's shared-memory race detector: a shadow of every element of a block's shared
//! arrays that remembers who last wrote it and who read it since, and the barriers each thread
//! has passed, so that an access of one thread to an element another thread accessed is
//! reported unless a barrier both took part in lies between them.
//!
//! What orders two accesses of threads `p` then `g` (of one block's lockstep):
//!
//! - `p == g`: program order;
//! - a block barrier (`mgpu.barrier`) since `p`'s access, which every thread of the block
//!   passes; so do a cluster arrival and a grid barrier (a phase boundary: the detector starts
//!   afresh at each phase of each block);
//! - a warp barrier (`mgpu.warp_barrier`) of their warp since `p`'s access, where `p` and `g`
//!   are lanes of one warp;
//! - for a remote write (`mgpu.cluster_store` into another block of the cluster) and an
//!   access of that block's threads: a cluster arrival since the earlier access (the arrival
//!   releases what came before it; a write after it is not ordered before reads after the
//!   wait).
//!
//! A read after another thread's unordered write (read-after-write), a write after another
//! thread's unordered read (write-after-read) or write (write-after-write) is an error naming
//! both threads. The simulator runs the threads in lockstep, op by op, so such an access sees
//! the value a GPU might or might not have shown: without the detector it would pass silently.
//! Reads since an element's last write are summarized (one reader, readers of one warp, readers
//! of several warps), so a write after reads of several warps needs a block barrier.

use std::collections::HashMap;

const NONE: u32 = u32::MAX;

/// One access of an element: the thread and the sync counts it had seen.
#[derive(Clone, Copy, Debug)]
struct Access {
    thread: u32,
    block: u64,
    warp: u64,
    cluster: u64,
}

impl Default for Access {
    fn default() -> Self {
        Access { thread: NONE, block: 0, warp: 0, cluster: 0 }
    }
}

/// Who read an element since its last write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Readers {
    #[default]
    None,
    /// One thread (`read.thread`).
    One,
    /// Threads of `read.thread`'s warp.
    Warp,
    /// Threads of several warps.
    Many,
}

#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    write: Access,
    read: Access,
    readers: Readers,
}

/// A race found: the other thread and what it did.
#[derive(Debug, PartialEq, Eq)]
pub struct Race {
    /// The other thread (lockstep index), `None` for reads of several threads.
    pub other: Option<usize>,
    /// `"wrote"` or `"read"`.
    pub did: &'static str,
}

/// The sync counts of one block's (or one cluster's blocks') lockstep: what orders accesses.
#[derive(Debug, Default)]
struct Clock {
    nthreads: usize,
    warps_per_block: usize,
    /// Per block rank: block barriers (and cluster arrivals) passed.
    block: Vec<u64>,
    /// Per warp: warp barriers and block-level syncs passed.
    warp: Vec<u64>,
    /// Cluster arrivals passed.
    cluster: u64,
}

impl Clock {
    fn rank(&self, g: usize) -> usize {
        g / self.nthreads.max(1)
    }

    fn warp_of(&self, g: usize) -> usize {
        self.rank(g) * self.warps_per_block + g % self.nthreads.max(1) / crate::sim::WARP
    }

    /// `g`'s access now, of an element of block `rank`'s memory.
    fn now(&self, g: usize, rank: usize) -> Access {
        Access {
            thread: g as u32,
            block: self.block.get(rank).copied().unwrap_or(0),
            warp: self.warp.get(self.warp_of(g)).copied().unwrap_or(0),
            cluster: self.cluster,
        }
    }

    /// Whether `p`'s access of block `rank`'s element is ordered before any access of `g`
    /// now.
    fn ordered(&self, p: Access, g: usize, rank: usize) -> bool {
        if p.thread == NONE || p.thread as usize == g {
            return true;
        }
        let pt = p.thread as usize;
        if self.rank(pt) != self.rank(g) || self.rank(g) != rank {
            return self.cluster > p.cluster;
        }
        if self.block[rank] > p.block {
            return true;
        }
        self.warp_of(pt) == self.warp_of(g) && self.warp[self.warp_of(g)] > p.warp
    }

    /// Whether every read in `sh` is ordered before an access of `g` now.
    fn readers_ordered(&self, sh: &Shadow, g: usize, rank: usize) -> bool {
        match sh.readers {
            Readers::None => true,
            Readers::One => self.ordered(sh.read, g, rank),
            Readers::Warp => {
                let r = sh.read.thread as usize;
                if self.rank(r) != self.rank(g) || self.rank(g) != rank {
                    return self.cluster > sh.read.cluster;
                }
                self.block[rank] > sh.read.block
                    || self.warp_of(r) == self.warp_of(g) && self.warp[self.warp_of(g)] > sh.read.warp
            }
            Readers::Many => {
                if self.rank(g) != rank {
                    return self.cluster > sh.read.cluster;
                }
                self.block[rank] > sh.read.block
            }
        }
    }
}

/// The detector of one block (or one cluster's blocks) in one phase.
#[derive(Debug, Default)]
pub struct Races {
    clock: Clock,
    /// By shared array (its address): a shadow per element.
    shadows: HashMap<usize, Vec<Shadow>>,
}

/// The shadows of elements `at..at + w` of array `array` (`len` elements), made at first use.
fn shadows_of(
    shadows: &mut HashMap<usize, Vec<Shadow>>,
    array: usize,
    len: usize,
    at: usize,
    w: usize,
) -> &mut [Shadow] {
    let v = shadows.entry(array).or_default();
    if v.len() < len {
        v.resize(len, Shadow::default());
    }
    &mut v[at..at + w]
}

impl Races {
    /// A fresh detector for `ranks` blocks of `nthreads` threads run in lockstep.
    pub fn new(nthreads: usize, ranks: usize) -> Self {
        let warps_per_block = nthreads.div_ceil(crate::sim::WARP).max(1);
        let clock = Clock {
            nthreads,
            warps_per_block,
            block: vec![0; ranks.max(1)],
            warp: vec![0; warps_per_block * ranks.max(1)],
            cluster: 0,
        };
        Races { clock, shadows: HashMap::new() }
    }

    /// Thread `g` reads elements `at..at + w` of block `rank`'s array `array` (`len` elements).
    pub fn read(&mut self, g: usize, rank: usize, array: usize, len: usize, at: usize, w: usize) -> Result<(), Race> {
        let Races { clock, shadows } = self;
        let now = clock.now(g, rank);
        let (wg, rg) = (clock.warp_of(g), clock.rank(g));
        for sh in shadows_of(shadows, array, len, at, w) {
            if !clock.ordered(sh.write, g, rank) {
                return Err(Race { other: Some(sh.write.thread as usize), did: "wrote" });
            }
            if clock.readers_ordered(sh, g, rank) {
                sh.readers = Readers::One;
            } else {
                let r = sh.read.thread as usize;
                sh.readers = match sh.readers {
                    Readers::One if r == g => Readers::One,
                    Readers::One | Readers::Warp if clock.warp_of(r) == wg && clock.rank(r) == rg => Readers::Warp,
                    _ => Readers::Many,
                };
            }
            // The latest reader stands for the summary (a reader of its warp for `Warp`).
            sh.read = now;
        }
        Ok(())
    }

    /// Thread `g` writes elements `at..at + w` of block `rank`'s array `array`.
    pub fn write(&mut self, g: usize, rank: usize, array: usize, len: usize, at: usize, w: usize) -> Result<(), Race> {
        let Races { clock, shadows } = self;
        let fresh = Shadow { write: clock.now(g, rank), read: Access::default(), readers: Readers::None };
        for sh in shadows_of(shadows, array, len, at, w) {
            if !clock.ordered(sh.write, g, rank) {
                return Err(Race { other: Some(sh.write.thread as usize), did: "wrote" });
            }
            if !clock.readers_ordered(sh, g, rank) {
                let other = (sh.readers == Readers::One).then_some(sh.read.thread as usize);
                return Err(Race { other, did: "read" });
            }
            *sh = fresh;
        }
        Ok(())
    }

    /// A block barrier passed by every thread of block `rank`.
    pub fn block_barrier(&mut self, rank: usize) {
        let c = &mut self.clock;
        if let Some(b) = c.block.get_mut(rank) {
            *b += 1;
        }
        let first = rank * c.warps_per_block;
        for w in first..(first + c.warps_per_block).min(c.warp.len()) {
            c.warp[w] += 1;
        }
    }

    /// A warp barrier passed by the lanes of the warp of thread `g`.
    pub fn warp_barrier(&mut self, g: usize) {
        let w = self.clock.warp_of(g);
        if let Some(c) = self.clock.warp.get_mut(w) {
            *c += 1;
        }
    }

    /// A cluster arrival of every thread of every block.
    pub fn cluster_arrive(&mut self) {
        self.clock.cluster += 1;
        for r in 0..self.clock.block.len() {
            self.block_barrier(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_barriers() {
        // Two warps of 32 in one block of 64.
        let mut r = Races::new(64, 1);
        r.write(0, 0, 1, 8, 0, 1).unwrap();
        // Another lane of the warp reads it: a race, until a warp barrier.
        assert_eq!(r.read(1, 0, 1, 8, 0, 1), Err(Race { other: Some(0), did: "wrote" }));
        r.warp_barrier(0);
        r.read(1, 0, 1, 8, 0, 1).unwrap();
        // A lane of the other warp: the warp barrier does not order it.
        r.write(2, 0, 1, 8, 4, 1).unwrap();
        r.warp_barrier(2);
        assert!(r.read(40, 0, 1, 8, 4, 1).is_err());
        r.block_barrier(0);
        r.read(40, 0, 1, 8, 4, 1).unwrap();
        // Write after reads of two lanes of one warp, then of two warps.
        r.read(3, 0, 1, 8, 5, 1).unwrap();
        r.read(4, 0, 1, 8, 5, 1).unwrap();
        assert_eq!(r.write(3, 0, 1, 8, 5, 1), Err(Race { other: None, did: "read" }));
        r.warp_barrier(3);
        r.write(3, 0, 1, 8, 5, 1).unwrap();
        r.read(3, 0, 1, 8, 6, 1).unwrap();
        r.read(33, 0, 1, 8, 6, 1).unwrap();
        r.warp_barrier(3);
        assert!(r.write(5, 0, 1, 8, 6, 1).is_err());
        r.block_barrier(0);
        r.write(5, 0, 1, 8, 6, 1).unwrap();
        // A thread's own accesses are in program order.
        r.write(7, 0, 1, 8, 7, 1).unwrap();
        r.read(7, 0, 1, 8, 7, 1).unwrap();
        r.write(7, 0, 1, 8, 7, 1).unwrap();
    }

    #[test]
    fn a_remote_write_needs_a_cluster_arrival() {
        // Two blocks of 32: thread 0 (rank 0) writes rank 1's element, thread 32 reads it.
        let mut r = Races::new(32, 2);
        r.write(0, 1, 9, 4, 0, 1).unwrap();
        assert!(r.read(32, 1, 9, 4, 0, 1).is_err());
        r.cluster_arrive();
        r.read(32, 1, 9, 4, 0, 1).unwrap();
    }
}
