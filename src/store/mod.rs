//! The only SQL in the crate: opening the database, pragmas, migrations and queries.

use std::path::Path;

/// A failure to open or use the database.
#[derive(Debug)]
pub enum StoreError {
    Sqlite(rusqlite::Error),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "database error: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sqlite(e)
    }
}

/// The review database.
pub struct Store {
    #[allow(dead_code)]
    conn: rusqlite::Connection,
}

impl Store {
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Ok(Store {
            conn: rusqlite::Connection::open(path)?,
        })
    }

    pub fn open_in_memory() -> Result<Store, StoreError> {
        Ok(Store {
            conn: rusqlite::Connection::open_in_memory()?,
        })
    }
}
