"""train: not implemented yet (see the open issues); the package exists so the layout is fixed."""
