from transformer_amp.train import main

main()
