//! Output that never destroys data: atomic file writes and error-checked standard streams.
//!
//! Every file a morf tool writes (`-o`, `.npy` results, JSON, PTX, e-graph dumps) goes
//! through [`write_atomic`] or a [`StagedSet`]: the bytes are written to a temporary file in
//! the destination's directory, flushed to disk, and renamed over the destination only when
//! everything succeeded. A failed run therefore leaves the old file (or no file) in place,
//! never an empty or half-written one. Renaming replaces a symbolic link at the destination
//! itself, so a write never follows a link it did not create.
//!
//! Standard output is written with [`write_stdout`], which reports `EPIPE` and `ENOSPC`
//! (`> /dev/full`) as errors instead of ignoring them; [`eprint_lossy`] writes to standard
//! error without the panic that `eprintln!` raises when standard error is closed.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file written to a temporary path beside its destination, not yet renamed into place.
///
/// Dropping it without [`Staged::commit`] removes the temporary file.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl Staged {
    /// The final path this file will be renamed to.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Renames the temporary file over the destination.
    pub fn commit(mut self) -> io::Result<()> {
        let r = fs::rename(&self.tmp, &self.dest);
        if r.is_ok() {
            self.done = true;
        }
        r
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn temp_path(dest: &Path) -> io::Result<PathBuf> {
    let name =
        dest.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "output path names no file"))?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp.{}.{}", std::process::id(), n));
    Ok(dest.with_file_name(tmp_name))
}

/// Writes `bytes` to a fresh temporary file beside `dest` and syncs it; see [`Staged`].
///
/// The temporary file is created exclusively (`create_new`), so an existing file or link
/// of that name is never opened or followed.
pub fn stage(dest: &Path, bytes: &[u8]) -> io::Result<Staged> {
    if dest.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "output path is a directory"));
    }
    let tmp = temp_path(dest)?;
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let staged = Staged { tmp, dest: dest.to_path_buf(), done: false };
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(staged)
}

/// Writes `bytes` to `dest` atomically: temporary file in the same directory, then rename.
///
/// A destination that names a stream or a device rather than a file to replace is written
/// in place (appending), and any error (`/dev/full`) is returned: one that exists and is
/// neither a regular file nor a directory (`/dev/null`, a FIFO), a link into `/dev` or
/// `/proc` (`/dev/stdout` when standard output is a file), and a path in a folder of
/// `/proc` (`/dev/fd/1`). Renaming over those would replace the device node or link itself.
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    if writes_in_place(dest) {
        let mut f = fs::OpenOptions::new().append(true).open(dest)?;
        f.write_all(bytes)?;
        return f.flush();
    }
    stage(dest, bytes)?.commit()
}

/// Whether [`write_atomic`] must write `dest` in place instead of renaming over it.
fn writes_in_place(dest: &Path) -> bool {
    let special = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    if fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return true;
    }
    if fs::read_link(dest).is_ok_and(|t| special(&t)) {
        return true;
    }
    // A folder of `/proc` (`/dev/fd/1` resolves into `/proc/<pid>/fd`) holds no files to
    // create; a regular file elsewhere in `/dev` (`/dev/shm/out.mlir`, a tmpfs) is replaced
    // atomically like any other file.
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::canonicalize(parent).is_ok_and(|p| p.starts_with("/proc"))
}

/// A set of files replaced together: every file is staged first, and only when all of
/// them were written are they renamed into place.
#[derive(Debug, Default)]
pub struct StagedSet {
    files: Vec<Staged>,
}

impl StagedSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stages one more file; on error the files staged so far are removed when the set drops.
    pub fn add(&mut self, dest: &Path, bytes: &[u8]) -> io::Result<()> {
        self.files.push(stage(dest, bytes)?);
        Ok(())
    }

    /// Renames every staged file into place, in the order they were added.
    pub fn commit(self) -> io::Result<()> {
        for f in self.files {
            let dest = f.dest.clone();
            f.commit().map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dest.display())))?;
        }
        Ok(())
    }
}

/// Writes `bytes` to standard output and flushes, returning any error (closed pipe, full
/// device) instead of ignoring it.
pub fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Writes `text` and a newline to standard error, ignoring failures (a closed standard
/// error must not turn a diagnostic into a panic).
pub fn eprint_lossy(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = err.write_all(b"\n");
    }
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("morf-io-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let d = dir("replace");
        let p = d.join("out.txt");
        fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    }

    #[test]
    fn dropped_stage_keeps_old_file() {
        let d = dir("drop");
        let p = d.join("out.txt");
        fs::write(&p, "old").unwrap();
        drop(stage(&p, b"new").unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn rename_replaces_symlink_not_target() {
        let d = dir("link");
        let target = d.join("target.txt");
        fs::write(&target, "keep").unwrap();
        let link = d.join("out.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
        assert!(!fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        if Path::new("/dev/full").exists() {
            assert!(write_atomic(Path::new("/dev/full"), b"x").is_err());
        }
        // A link into /proc (as /dev/stdout is) is written through, never replaced.
        let d = dir("proc-link");
        let link = d.join("out");
        std::os::unix::fs::symlink("/proc/self/fd/9999", &link).unwrap();
        assert!(write_atomic(&link, b"x").is_err());
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(writes_in_place(Path::new("/dev/stdout")));
        assert!(!writes_in_place(&d.join("plain.txt")));
        // A regular file on the /dev/shm tmpfs is replaced, not appended to.
        if Path::new("/dev/shm").is_dir() {
            let p = PathBuf::from(format!("/dev/shm/morf-io-test-{}.txt", std::process::id()));
            fs::write(&p, "old").unwrap();
            write_atomic(&p, b"new").unwrap();
            assert_eq!(fs::read_to_string(&p).unwrap(), "new");
            let _ = fs::remove_file(&p);
        }
    }

    #[test]
    fn missing_directory_is_an_error() {
        let d = dir("missing");
        assert!(write_atomic(&d.join("no/such/dir/out.txt"), b"x").is_err());
    }
}
