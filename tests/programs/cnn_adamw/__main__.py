from cnn_adamw.train import main

main()
