// Placeholder: written by the helper that owns this file.
