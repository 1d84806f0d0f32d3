"""Shell lines run for the model (`run_command`): the process group and its time limit
(`runner`), the output as the model reads it (`output`)."""
