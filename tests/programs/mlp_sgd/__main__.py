from mlp_sgd.train import main

main()
