"""One package per substrate (aws/ today; gcp/ and ssh/ next), each behind providers.base."""
