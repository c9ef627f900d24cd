"""Adapters that show rasklad's games to the ML ecosystem (docs/interop.md).

``rasklad.interop.openspiel`` registers games as OpenSpiel Python games (extra ``openspiel``);
``rasklad.interop.pettingzoo`` builds PettingZoo AEC environments (extra ``pettingzoo``). Both read a
game through its ``GameEntry`` and one ``Adapter`` (``rasklad.interop.adapters``): what neither the entry
nor the ``State`` protocol says -- a fixed numbering of every action, the chance stub as a sequence of
explicit chance events, and a fixed-size tensor of a view.
"""
