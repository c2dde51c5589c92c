"""evalcore-ui: the evaluation workbench (``evalcore ui``): runs, records, comparisons, trends and annotation
queues in the browser, served from this machine (:func:`evalcore_ui.app.create_app`)."""
