//! The one integration test binary: a module per area (each was a binary of its own until
//! issue 24), sharing one support module. One binary is linked once instead of thirty times;
//! a single file or area runs with a filter on the module path, e.g.
//! `cargo test --test it wal::` or `cargo test --test it tools_`.

mod support;

mod bounds;
mod capabilities;
mod carry_attacks;
mod carry_chain;
mod carry_channels;
mod carry_forward;
mod channel_terminal;
mod cli;
mod completions;
mod database_file;
mod elicitation;
mod export_file;
mod form3_csv;
mod fuzz;
mod generations;
mod history_done_when;
mod history_readers;
mod history_review;
mod history_transfer;
mod hostile;
mod hostile_strings;
mod librules_layers;
mod notifications;
mod packaging;
mod protocol;
mod readers;
mod reliability;
mod replay_command;
mod report_markdown;
mod resources;
mod schema_validation;
mod simplify_review;
mod sizing_bounds;
mod sizing_items;
mod stress;
mod sync_copies;
mod sync_folder;
mod sync_input;
mod sync_servers;
mod sync_state;
mod sync_team;
mod tools_answers;
mod tools_card;
mod tools_memory;
mod tools_paging;
mod tools_schema_args;
mod tools_schema_portable;
mod tools_storage;
mod transcripts;
mod verdicts;
mod wal;
mod wal_guard;
