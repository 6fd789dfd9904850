from commonplace.cli.main import main

main()
