"""ShapeWorld (CausalLink), the whole benchmark in one package.

The dataset: ``records`` (the row models), ``world`` (the simulator), ``entities`` (the entity
themes), ``generate`` (seeded task generation), ``answer_prompts`` (the ``prompts`` config),
``quality``, ``statistics`` and ``build`` (the builder's work). Playing: ``prompts``, ``parsing``,
``episode`` (the episode loop and its scores), ``agents`` (reference agents), ``chat`` (a model as a
policy), ``failures`` (the paper's failure patterns), ``scoring`` (the metrics). ``eval shapeworld``:
``task`` (the task), ``summary`` and ``view``.
"""
