//! Transcript replay: feed recorded client lines to a server and compare what comes back.
