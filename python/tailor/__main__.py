from tailor.cli import main

main()
