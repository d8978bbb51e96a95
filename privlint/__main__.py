from privlint.cli import entry

entry()
