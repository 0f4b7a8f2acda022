//! Building a parameterised WHERE clause from optional filters, shared by the record and
//! decision queries.

use rusqlite::types::Value as SqlValue;

/// A WHERE clause under construction: fragments and their positional parameters, kept in
/// step so the SQL stays parameterised whatever the filters.
#[derive(Default)]
pub(super) struct Clause {
    pub sql: Vec<String>,
    pub params: Vec<SqlValue>,
}

impl Clause {
    pub fn add(&mut self, sql: &str, params: impl IntoIterator<Item = SqlValue>) {
        self.sql.push(sql.to_string());
        self.params.extend(params);
    }

    pub fn text(s: &str) -> SqlValue {
        SqlValue::Text(s.to_string())
    }

    pub fn joined(&self) -> String {
        if self.sql.is_empty() {
            "1".into()
        } else {
            self.sql.join(" AND ")
        }
    }
}
