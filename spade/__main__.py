from spade.cli import app

app()
