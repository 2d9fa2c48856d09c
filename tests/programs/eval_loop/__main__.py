from eval_loop.train import main

main()
