"""The protocol interface (`base.StudyProtocol`) and the registry that finds protocols (`registry`).

This package sits at the bottom of the house: it imports nothing of the machinery (runs, studies,
reports, simulation, store …), so every shared package and every protocol may import it without a
cycle. The protocols themselves live beside it in `workbench/protocols/<name>/`; shared code reaches
them only through `registry.get(name)`.
"""
