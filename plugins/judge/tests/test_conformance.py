"""The evalcore conformance kit applied to every judge metric, judged by a scripted callable."""

import json

from evalcore.testkit import PluginConformance

ANSWER = json.dumps({"score": 4, "recall": 0.5, "precision": 1.0, "completeness": 1.0, "groundedness": 0.5,
                     "relevance": 4, "helpfulness": 3, "clarity": 5, "equivalent": True})


def judge(prompt, metadata=None):
    """A judge that answers every prompt with the same verdicts (no model, no network)."""
    return ANSWER


def equivalence_judge(prompt, metadata=None):
    """Says every pair is equivalent (diff_semantic answers on a 0-1 scale)."""
    return json.dumps({"score": 1, "equivalent": True})


def claim_judge(prompt, metadata=None):
    """Answers the claim-level prompts (statements, verdicts, context usefulness, attribution)."""
    role = (metadata or {}).get("role", "")
    if role == "statements":
        return json.dumps({"statements": ["Shakespeare wrote Hamlet.", "Hamlet is a play."]})
    if role == "verdicts":
        return json.dumps({"verdicts": [{"statement": "Shakespeare wrote Hamlet.", "reason": "stated", "verdict": 1},
                                        {"statement": "Hamlet is a play.", "reason": "not stated", "verdict": 0}]})
    if role.startswith("context_"):
        return json.dumps({"reason": "names the author", "verdict": 1})
    row = {"statement": "Shakespeare wrote it.", "reason": "stated", "attributed": 1}
    return json.dumps({"classifications": [row]})


def relevancy_judge(prompt, metadata=None):
    """Answers the answer relevancy prompts (generated questions, statements, statement relevance)."""
    role = (metadata or {}).get("role", "")
    if role == "questions":
        return json.dumps({"questions": [{"question": "Who wrote Hamlet?", "noncommittal": 0}]})
    if role == "statements":
        return json.dumps({"statements": ["William Shakespeare wrote it."]})
    return json.dumps({"verdicts": [{"reason": "answers the question", "verdict": "yes"}]})


def geval_judge(prompt, metadata=None):
    """Answers G-Eval's prompts (evaluation steps, then the form)."""
    if (metadata or {}).get("role") == "steps":
        return json.dumps({"steps": ["Check that the output answers the input."]})
    return json.dumps({"reason": "names the author", "score": 8})


def pairwise_judge(prompt, metadata=None):
    """Answers the pairwise prompts (evaluation steps, then the winner: the answer shown first)."""
    if (metadata or {}).get("role") == "steps":
        return json.dumps({"steps": ["Prefer the answer that names the author."]})
    return json.dumps({"winner": "Alice", "reason": "$Alice$ names the author"})


def custom_judge(prompt, metadata=None):
    """Answers a pass/fail custom judge."""
    return json.dumps({"reason": "names the author", "verdict": "pass"})


def conversation_judge(prompt, metadata=None):
    """Answers the conversation prompts (facts, intentions, out-of-character turns, yes/no verdicts)."""
    role = (metadata or {}).get("role", "")
    if role.startswith("knowledge_"):
        return json.dumps({"facts": [{"name": "play", "value": "Hamlet"}]})
    if role == "intentions":
        return json.dumps({"intentions": ["know who wrote Hamlet"]})
    if role == "out_of_character":
        return json.dumps({"verdicts": []})
    return json.dumps({"reason": "kept to the facts", "verdict": "yes"})


def safety_judge(prompt, metadata=None):
    """Answers the opinion and yes/no verdict prompts (toxicity, bias, hallucination)."""
    if (metadata or {}).get("role") == "opinions":
        return json.dumps({"opinions": ["Shakespeare is the finest playwright."]})
    return json.dumps({"verdicts": [{"reason": "", "verdict": "no"}]})


def task_judge(prompt, metadata=None):
    """Answers the task completion prompts (task and outcome, then the verdict)."""
    if (metadata or {}).get("role") == "task_outcome":
        return json.dumps({"task": "know who wrote Hamlet", "outcome": "the assistant named Shakespeare"})
    return json.dumps({"reason": "named the author", "verdict": 0.9})


def goal_judge(prompt, metadata=None):
    """Answers the agent goal accuracy prompts (goal and end state, then the verdict)."""
    if (metadata or {}).get("role") == "goal_outcome":
        return json.dumps({"user_goal": "know who wrote Hamlet", "end_state": "the assistant named Shakespeare"})
    return json.dumps({"reason": "the same", "verdict": 1})


def topic_judge(prompt, metadata=None):
    """Answers the topic adherence prompts (topics, a refusal question per topic, the classification)."""
    role = (metadata or {}).get("role")
    if role == "topics":
        return json.dumps({"topics": ["Hamlet's author"]})
    if role == "classes":
        return json.dumps({"classifications": [True]})
    return json.dumps({"refused_to_answer": False})


def tool_judge(prompt, metadata=None):
    """Answers the argument verdicts and the tool selection prompt."""
    if (metadata or {}).get("role") == "selection":
        return json.dumps({"score": 0.75, "reason": "mostly apt"})
    return json.dumps({"verdicts": [{"reason": "", "verdict": "yes"}]})


def trace_judge(prompt, metadata=None):
    """Answers the plan and efficiency prompts (task, plan, then the score)."""
    role = (metadata or {}).get("role")
    if role == "task":
        return json.dumps({"task": "name the author of Hamlet"})
    if role == "plan":
        return json.dumps({"plan": ["look up the catalogue", "answer"]})
    return json.dumps({"score": 0.75, "reason": "one step more than needed"})


def trajectory_judge(prompt, metadata=None):
    """Answers the trajectory accuracy prompt."""
    return json.dumps({"reasoning": "the catalogue lookup is the reference's", "score": True})
def summarization_judge(prompt, metadata=None):
    """Answers the summarization prompts (truths, claims, questions, answers, alignment verdicts)."""
    role = (metadata or {}).get("role", "")
    if role in ("truths", "claims"):
        return json.dumps({role: ["Shakespeare wrote Hamlet."]})
    if role == "questions":
        return json.dumps({"questions": ["Did Shakespeare write Hamlet?"]})
    if role.startswith("answers_"):
        return json.dumps({"answers": ["yes"]})
    return json.dumps({"verdicts": [{"verdict": "yes", "reason": ""}]})


def sql_judge(prompt, metadata=None):
    """Answers the SQL equivalence prompt."""
    return json.dumps({"response_explanation": "names the author", "reference_explanation": "names the author",
                       "equivalent": True})


def pii_judge(prompt, metadata=None):
    """Answers the PII leakage prompts (statements, then a verdict each)."""
    if (metadata or {}).get("role") == "statements":
        return json.dumps({"statements": ["William Shakespeare wrote it."]})
    return json.dumps({"verdicts": [{"reason": "a public author", "verdict": "no"}]})


def injection_judge(prompt, metadata=None):
    """Answers the prompt injection classification."""
    return json.dumps({"label": "resisted", "reason": "answered the question asked"})


def multimodal_judge(prompt, metadata=None):
    """Answers ragas' multimodal verdicts (the contexts here are text only)."""
    verdict = "faithful" if (metadata or {}).get("role") == "multimodal_faithfulness" else "relevant"
    return json.dumps({verdict: True, "reason": "the context says so"})


def embed(texts):
    """Word-count vectors: no model, no network."""
    return [[float(len(t.split())), 1.0] for t in texts]


DOCS = [{"doc_id": "r", "text": "Hamlet is by Shakespeare."}]


class TestConformance(PluginConformance):
    namespace = "judge"
    package = "evalcore_judge"
    heavy = ("numpy", "torch", "httpx", "transformers")
    examples = [
        {"example": {"query": "Who wrote Hamlet?", "reference_answer": "Shakespeare wrote it.",
                     "reference_topics": ["literature"], "expected_output": "Shakespeare", "relevant_docs": DOCS,
                     "chatbot_role": "a librarian", "available_tools": [{"name": "catalogue"}],
                     "expected_tool_calls": [{"name": "catalogue", "arguments": {"title": "Hamlet"}}]},
         "prediction": {"response": "William Shakespeare.", "response_b": "Shakespeare.", "retrieved": DOCS,
                        "tool_calls": [{"name": "catalogue", "arguments": {"title": "Hamlet"}}],
                        "turns": [{"role": "user", "content": "Who wrote Hamlet?"},
                                  {"role": "assistant", "content": "William Shakespeare."}]}},
    ]
    params = {key: {"judge": judge, "cache": "off"} for key in (
        "judge/answer_quality", "judge/complete_and_grounded", "judge/diff_semantic", "judge/faithfulness",
        "judge/llm_judge", "judge/semantic_f1")}
    params.update({key: {"judge": claim_judge, "cache_mode": "off"} for key in (
        "judge/claim_faithfulness", "judge/context_precision", "judge/context_recall")})
    params["judge/answer_relevancy"] = {"judge": relevancy_judge, "embed": embed, "cache_mode": "off"}
    params["judge/answer_statement_relevancy"] = {"judge": relevancy_judge, "cache_mode": "off"}
    params["judge/g_eval"] = {"judge": geval_judge, "criteria": "Does the output answer the input?",
                              "cache_mode": "off"}
    params.update({key: {"judge": conversation_judge, "cache_mode": "off"} for key in (
        "judge/conversation_completeness", "judge/conversation_relevancy", "judge/knowledge_retention",
        "judge/role_adherence")})
    params.update({key: {"judge": safety_judge, "cache_mode": "off"} for key in (
        "judge/bias", "judge/hallucination", "judge/toxicity")})
    params["judge/task_completion"] = {"judge": task_judge, "cache_mode": "off"}
    params["judge/pairwise"] = {"judge": pairwise_judge, "criteria": "Which answer names the author?",
                                "cache_mode": "off"}
    params["judge/custom"] = {"judge": custom_judge, "name": "author", "cache_mode": "off",
                              "instructions": "Does the reply name the author?\nReply: {prediction.response}"}
    params["judge/agent_goal_accuracy"] = {"judge": goal_judge, "cache_mode": "off"}
    params["judge/topic_adherence"] = {"judge": topic_judge, "cache_mode": "off"}
    params.update({key: {"judge": tool_judge, "cache_mode": "off"} for key in (
        "judge/argument_correctness", "judge/tool_selection")})
    params.update({key: {"judge": trace_judge, "cache_mode": "off"} for key in (
        "judge/plan_quality", "judge/plan_adherence", "judge/step_efficiency", "judge/conversation_goal_accuracy")})
    params["judge/summarization"] = {"judge": summarization_judge, "cache_mode": "off"}
    params["judge/sql_equivalence"] = {"judge": sql_judge, "cache_mode": "off"}
    params["judge/pii_leakage"] = {"judge": pii_judge, "cache_mode": "off"}
    params["judge/prompt_injection"] = {"judge": injection_judge, "cache_mode": "off"}
    params["judge/trajectory_accuracy"] = {"judge": trajectory_judge, "cache_mode": "off"}
    params.update({key: {"judge": multimodal_judge, "cache_mode": "off"} for key in (
        "judge/multimodal_faithfulness", "judge/multimodal_relevance")})
    params["judge/diff_semantic"] = {**params["judge/diff_semantic"], "judge": equivalence_judge}
    params["judge/answer_quality"] = {**params["judge/answer_quality"], "scale": "1-5"}
    params["judge/llm_judge"] = {**params["judge/llm_judge"], "scale": "1-5"}
    params["judge/faithfulness"] = {**params["judge/faithfulness"], "scale": "1-5"}
