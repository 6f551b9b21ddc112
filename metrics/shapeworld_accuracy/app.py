from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).with_name("shapeworld_accuracy.py")))
launch_gradio_widget(module)
