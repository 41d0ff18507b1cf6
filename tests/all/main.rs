//! reviewhost's integration tests, one binary, one module per feature.
