"""`cuvil-debug tui`: a Textual app to browse Cuvil IR next to the model's source
(docs/TUI.md). data.py is the view model; one module per pane; command.py the CLI."""
