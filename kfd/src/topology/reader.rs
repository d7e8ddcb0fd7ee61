//! Where topology files come from: the real sysfs, any directory, or memory.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::properties::MAX_FILE_SIZE;

/// Read access to a KFD topology tree, by paths relative to its root
/// (`generation_id`, `nodes/1/properties`, ...).
///
/// [`FsReader`] reads a directory; [`MemReader`] holds files in memory (for
/// fuzzing and tests); a test can wrap either to change files between reads.
pub trait SysfsReader {
    /// The whole content of the file at `path`. Implementations refuse files
    /// larger than [`MAX_FILE_SIZE`] with [`io::ErrorKind::FileTooLarge`].
    fn read(&self, path: &str) -> io::Result<Vec<u8>>;

    /// The names of the entries of the directory at `path` (`""` is the
    /// root), in any order.
    fn list(&self, path: &str) -> io::Result<Vec<String>>;
}

impl<R: SysfsReader + ?Sized> SysfsReader for &R {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        (**self).read(path)
    }
    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        (**self).list(path)
    }
}

/// Reads a topology tree from a directory: the kernel's
/// [`SYSFS_TOPOLOGY`](super::SYSFS_TOPOLOGY) or a copy of it.
#[derive(Debug, Clone)]
pub struct FsReader {
    root: PathBuf,
}

impl FsReader {
    /// A reader of the tree under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl SysfsReader for FsReader {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        let file = std::fs::File::open(self.root.join(path))?;
        // sysfs reports a size of 4096 for every attribute, so read up to the
        // limit instead of trusting the metadata.
        let mut buf = Vec::new();
        let limit = u64::try_from(MAX_FILE_SIZE)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        file.take(limit).read_to_end(&mut buf)?;
        if buf.len() > MAX_FILE_SIZE {
            return Err(io::Error::from(io::ErrorKind::FileTooLarge));
        }
        Ok(buf)
    }

    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(self.root.join(path))? {
            let entry = entry?;
            // A non-UTF-8 name cannot be a node number; keep it visible as
            // a lossy string so the caller reports it.
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }
}

/// A topology tree held in memory: file paths (relative, `/`-separated) to
/// contents. Directories exist implicitly as prefixes of file paths.
#[derive(Debug, Clone, Default)]
pub struct MemReader {
    files: BTreeMap<String, Vec<u8>>,
}

impl MemReader {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file.
    pub fn insert(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), contents.into());
    }

    /// Removes a file, returning its contents.
    pub fn remove(&mut self, path: &str) -> Option<Vec<u8>> {
        self.files.remove(path)
    }

    /// Loads every file under `root` (for tests that modify a fixture).
    pub fn from_dir(root: &Path) -> io::Result<Self> {
        fn walk(base: &Path, dir: &Path, out: &mut MemReader) -> io::Result<()> {
            for entry in std::fs::read_dir(dir)? {
                let entry = entry?;
                let path = entry.path();
                if entry.file_type()?.is_dir() {
                    walk(base, &path, out)?;
                } else {
                    let rel = path.strip_prefix(base).map_err(io::Error::other)?;
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    out.insert(rel, std::fs::read(&path)?);
                }
            }
            Ok(())
        }
        let mut out = Self::new();
        walk(root, root, &mut out)?;
        Ok(out)
    }

    /// Every file path, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl SysfsReader for MemReader {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        let data = self.files.get(path).ok_or(io::ErrorKind::NotFound)?;
        if data.len() > MAX_FILE_SIZE {
            return Err(io::Error::from(io::ErrorKind::FileTooLarge));
        }
        Ok(data.clone())
    }

    fn list(&self, path: &str) -> io::Result<Vec<String>> {
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let names: std::collections::BTreeSet<&str> = self
            .files
            .range::<str, _>((
                std::ops::Bound::Included(prefix.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .map(|(key, _)| key)
            .take_while(|key| key.starts_with(&prefix))
            .filter_map(|key| key.get(prefix.len()..)?.split('/').next())
            .filter(|name| !name.is_empty())
            .collect();
        if names.is_empty() {
            return Err(io::ErrorKind::NotFound.into());
        }
        Ok(names.into_iter().map(str::to_owned).collect())
    }
}
