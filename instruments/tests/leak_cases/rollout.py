"""A rollout buffer as PPO code keeps one: each step's log-probabilities and value estimates, kept for the update
at the end of the rollout. Collected without torch.no_grad(), each entry keeps its step's graph."""
import torch
from torch import nn

torch.manual_seed(0)
policy, critic = nn.Linear(4, 2), nn.Linear(4, 1)
observations = torch.Generator().manual_seed(0)
rollout = {"log_probs": [], "values": []}


def step():
    obs = torch.randn(16, 4, generator=observations)
    log_prob = torch.log_softmax(policy(obs), dim=-1)[:, 0]
    value = critic(obs).squeeze(-1)
    rollout["log_probs"].append(log_prob)
    rollout["values"].append(value)
