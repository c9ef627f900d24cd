"""Route modules of the API, one per resource."""
