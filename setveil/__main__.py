from setveil.core.cli import main

main()
