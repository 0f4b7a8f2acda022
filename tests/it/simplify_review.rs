//! Behaviour the simplifications of 892990d..0e53d8c must keep: each test pins an answer the
//! build before them gave (found by running both builds on the same input).

#![allow(clippy::unwrap_used)]

use review_mcp::store::Store;

use crate::support::TempDir;
use crate::support::inproc::server_remembers_bore;

/// A record row with two unreadable columns, its kind (an unknown name) and its id (a blob):
/// the kind is read first, so the refusal names the kind, as it always did.
#[test]
fn a_record_row_with_a_bad_kind_and_a_bad_id_is_refused_for_its_kind() {
    let dir = TempDir::new("simplify-kind").unwrap();
    let db = dir.join("review.db");
    server_remembers_bore(&db);
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON; \
             UPDATE records SET kind = 'bogus', id = X'00';",
        )
        .unwrap();
    }
    let mut store = Store::open(&db).unwrap();
    let err = store.export_all().map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("unknown record kind \"bogus\""), "{err}");
}
