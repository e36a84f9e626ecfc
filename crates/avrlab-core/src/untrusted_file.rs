//! Reading a file that untrusted code could have written (a test report, a request of the fork
//! relay, a file of an agent's work folder): one routine, so every reader refuses the same things.
//! The file is opened with `O_NOFOLLOW` and `O_NONBLOCK`, its type and size are checked on the
//! opened descriptor (a file swapped after a listing is still the one judged), and no more than
//! the limit is read even when the file grows while it is read.

use std::fs::{FileType, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// A regular file's bytes and the metadata of the descriptor they were read from.
#[derive(Debug)]
pub struct RegularFile {
    pub bytes: Vec<u8>,
    pub metadata: Metadata,
}

/// Why a file written by untrusted code was not read.
#[derive(Debug, thiserror::Error)]
pub enum UntrustedFileError {
    /// A link, a folder, a FIFO, a socket or a device where a regular file was expected.
    #[error("a {0}, not a regular file")]
    NotRegular(&'static str),
    /// More bytes than the reader allows.
    #[error("larger than {0} bytes")]
    TooLarge(u64),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Reads the regular file at `path`, at most `limit` bytes, without following a link or blocking
/// on a FIFO.
pub fn read_untrusted_file(path: &Path, limit: u64) -> Result<RegularFile, UntrustedFileError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match file {
        Ok(file) => file,
        // O_NOFOLLOW on a link fails with ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(UntrustedFileError::NotRegular("symbolic link"));
        }
        Err(e) => return Err(e.into()),
    };
    let metadata = file.metadata()?;
    if !metadata.file_type().is_file() {
        return Err(UntrustedFileError::NotRegular(kind_of(
            metadata.file_type(),
        )));
    }
    if metadata.len() > limit {
        return Err(UntrustedFileError::TooLarge(limit));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // One byte past the limit shows a file that grew since it was measured.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(UntrustedFileError::TooLarge(limit));
    }
    Ok(RegularFile { bytes, metadata })
}

/// What kind of file this is, in words.
pub fn kind_of(file_type: FileType) -> &'static str {
    if file_type.is_symlink() {
        "symbolic link"
    } else if file_type.is_dir() {
        "folder"
    } else if file_type.is_fifo() {
        "FIFO"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "device"
    } else if file_type.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_regular_file_and_refuses_links_fifos_folders_and_oversize() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("report.xml");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_untrusted_file(&file, 10).unwrap().bytes, b"0123456789");
        assert!(matches!(
            read_untrusted_file(&file, 9),
            Err(UntrustedFileError::TooLarge(9))
        ));

        let link = dir.path().join("link.xml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(matches!(
            read_untrusted_file(&link, 100),
            Err(UntrustedFileError::NotRegular("symbolic link"))
        ));

        let fifo = dir.path().join("fifo.xml");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // A FIFO nobody writes to: the read must return at once, refused.
        assert!(matches!(
            read_untrusted_file(&fifo, 100),
            Err(UntrustedFileError::NotRegular("FIFO"))
        ));

        assert!(matches!(
            read_untrusted_file(dir.path(), 100),
            Err(UntrustedFileError::NotRegular("folder"))
        ));
        assert!(matches!(
            read_untrusted_file(&dir.path().join("missing"), 100),
            Err(UntrustedFileError::Io(_))
        ));
    }
}
