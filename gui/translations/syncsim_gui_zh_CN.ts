<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CollectiveSchedule</name>
    <message>
        <source>Ring AllReduce</source>
        <translation>环形 AllReduce</translation>
    </message>
    <message>
        <source>Tree AllReduce</source>
        <translation>树形 AllReduce</translation>
    </message>
    <message>
        <source>Halving-doubling AllReduce</source>
        <translation>减半-加倍 AllReduce</translation>
    </message>
    <message>
        <source>fold in (odd ranks hand over)</source>
        <translation>折入（奇数 rank 交出数据）</translation>
    </message>
    <message>
        <source>reduce-scatter</source>
        <translation>reduce-scatter（归约-分散）</translation>
    </message>
    <message>
        <source>all-gather</source>
        <translation>all-gather（全收集）</translation>
    </message>
    <message>
        <source>reduce up the tree</source>
        <translation>沿树向上归约</translation>
    </message>
    <message>
        <source>broadcast down the tree</source>
        <translation>沿树向下广播</translation>
    </message>
    <message>
        <source>recursive halving (reduce-scatter)</source>
        <translation>递归减半（归约-分散）</translation>
    </message>
    <message>
        <source>recursive doubling (all-gather)</source>
        <translation>递归加倍（全收集）</translation>
    </message>
    <message>
        <source>fold out (results handed back)</source>
        <translation>折出（结果交回）</translation>
    </message>
    <message>
        <source>Ring AllGather</source>
        <translation>环形 AllGather</translation>
    </message>
    <message>
        <source>Stage-to-stage transfer</source>
        <translation>阶段间传输</translation>
    </message>
    <message>
        <source>to the next pipeline stage</source>
        <translation>传到下一个流水线阶段</translation>
    </message>
</context>
<context>
    <name>ConvergenceModel</name>
    <message>
        <source>no target</source>
        <translation>无目标</translation>
    </message>
    <message>
        <source>not reached</source>
        <translation>未达到</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>at %1 (update %2)</source>
        <translation>于 %1（第 %2 次更新）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>synchronous</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>%1 mean, %2 max</source>
        <translation>平均 %1，最大 %2</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <source>Updates</source>
        <translation>更新次数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Best loss</source>
        <translation>最佳损失</translation>
    </message>
    <message>
        <source>Final accuracy</source>
        <translation>最终准确率</translation>
    </message>
    <message>
        <source>Time to target</source>
        <translation>达到目标时间</translation>
    </message>
    <message>
        <source>Updates to target</source>
        <translation>达到目标更新次数</translation>
    </message>
    <message>
        <source>Diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>Staleness</source>
        <translation>陈旧度</translation>
    </message>
</context>
<context>
    <name>ConvergenceRun</name>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>expected a value, got null</source>
        <translation>应为一个值，实际为 null</translation>
    </message>
    <message>
        <source>expected a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <source>expected a number</source>
        <translation>应为数字</translation>
    </message>
    <message>
        <source>expected a finite number</source>
        <translation>应为有限数字</translation>
    </message>
    <message>
        <source>expected a time &gt;= 0 (microseconds), got %1</source>
        <translation>应为 &gt;= 0 的时间（微秒），实际为 %1</translation>
    </message>
    <message>
        <source>expected a whole number</source>
        <translation>应为整数</translation>
    </message>
    <message>
        <source>expected a count &gt;= 0, got %1</source>
        <translation>应为 &gt;= 0 的计数，实际为 %1</translation>
    </message>
    <message>
        <source>expected an object</source>
        <translation>应为对象</translation>
    </message>
    <message>
        <source>expected an array</source>
        <translation>应为数组</translation>
    </message>
    <message>
        <source>curve points must be in update and time order</source>
        <translation>曲线点必须按更新次数和时间排序</translation>
    </message>
    <message>
        <source>%1 %2, %3 workers</source>
        <translation>%1 %2，%3 个工作节点</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>not valid JSON: %1</source>
        <translation>不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>not a report.json: expected an object</source>
        <translation>不是 report.json：应为对象</translation>
    </message>
    <message>
        <source>no convergence section: run the scenario with a `convergence:` section or --set convergence.target_loss=X (docs/convergence.md)</source>
        <translation>没有 convergence 部分：请在场景中加入 `convergence:` 部分，或使用 --set convergence.target_loss=X 运行（docs/convergence.md）</translation>
    </message>
    <message>
        <source>given without a target_loss</source>
        <translation>给出了该值却没有 target_loss</translation>
    </message>
    <message>
        <source>expected a count &gt;= 0</source>
        <translation>应为 &gt;= 0 的计数</translation>
    </message>
    <message>
        <source>not a report.json written by `syncsim run`: it has no &quot;scenario&quot; or &quot;convergence&quot; key</source>
        <translation>不是 `syncsim run` 写出的 report.json：没有 &quot;scenario&quot; 或 &quot;convergence&quot; 键</translation>
    </message>
</context>
<context>
    <name>ConvergenceView</name>
    <message>
        <source>Accuracy (right axis)</source>
        <translation>准确率（右轴）</translation>
    </message>
    <message>
        <source>Open report.json files written by `syncsim run` with a convergence section, or run a scenario that has one, to compare how runs converge.</source>
        <translation>打开由 `syncsim run` 写出、带有 convergence 部分的 report.json 文件，或运行带有该部分的场景，以比较各次运行的收敛情况。</translation>
    </message>
    <message>
        <source>Simulated time</source>
        <translation>模拟时间</translation>
    </message>
    <message>
        <source>Updates</source>
        <translation>更新次数</translation>
    </message>
    <message>
        <source>Add Reports...</source>
        <translation>添加报告...</translation>
    </message>
    <message>
        <source>Remove Run</source>
        <translation>移除运行</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>X axis:</source>
        <translation>X 轴：</translation>
    </message>
    <message>
        <source>Held-out loss against simulated time</source>
        <translation>留出集损失随模拟时间的变化</translation>
    </message>
    <message>
        <source>Held-out loss against updates</source>
        <translation>留出集损失随更新次数的变化</translation>
    </message>
    <message>
        <source>Simulated time (%1)</source>
        <translation>模拟时间（%1）</translation>
    </message>
    <message>
        <source>Held-out loss</source>
        <translation>留出集损失</translation>
    </message>
    <message>
        <source>Held-out accuracy (%, dotted)</source>
        <translation>留出集准确率（%，点线）</translation>
    </message>
    <message>
        <source>Reached the target</source>
        <translation>达到目标</translation>
    </message>
    <message>
        <source>Diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>%1 (diverged)</source>
        <translation>%1（发散）</translation>
    </message>
    <message>
        <source>Target loss %1</source>
        <translation>目标损失 %1</translation>
    </message>
    <message>
        <source>Select a run to see its staleness.</source>
        <translation>选择一次运行以查看其陈旧度。</translation>
    </message>
    <message>
        <source>%1 is synchronous: every update is computed on the current parameters (staleness 0).</source>
        <translation>%1 为同步运行：每次更新都基于当前参数计算（陈旧度为 0）。</translation>
    </message>
    <message>
        <source>Staleness of %1</source>
        <translation>%1 的陈旧度</translation>
    </message>
    <message>
        <source>Staleness (updates behind): mean %1, max %2</source>
        <translation>陈旧度（落后的更新次数）：平均 %1，最大 %2</translation>
    </message>
</context>
<context>
    <name>JobMachine</name>
    <message>
        <source>background</source>
        <translation>背景流量</translation>
    </message>
    <message>
        <source>%1 → %2: shared — %3</source>
        <translation>%1 → %2：共享——%3</translation>
    </message>
    <message>
        <source>%1 → %2: %3</source>
        <translation>%1 → %2：%3</translation>
    </message>
</context>
<context>
    <name>JobsView</name>
    <message>
        <source>%1: %2 ms, %3x</source>
        <translation>%1：%2 ms，%3x</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>background</source>
        <translation>背景流量</translation>
    </message>
    <message>
        <source>Open a scenario with jobs: to see its jobs on the machine.</source>
        <translation>打开带有 jobs: 部分的场景，以查看其作业在机器上的位置。</translation>
    </message>
    <message>
        <source>shared link (stripes: its jobs)</source>
        <translation>共享链路（条纹：使用它的作业）</translation>
    </message>
    <message>
        <source>%1: no servers or switches to draw the jobs on</source>
        <translation>%1：没有可绘制作业的服务器或交换机</translation>
    </message>
    <message>
        <source>%1: idle</source>
        <translation>%1：空闲</translation>
    </message>
    <message>
        <source>%1: job %2</source>
        <translation>%1：作业 %2</translation>
    </message>
</context>
<context>
    <name>LaneModel</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>链路</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>泳道</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Spans</source>
        <translation>区间数</translation>
    </message>
</context>
<context>
    <name>LayoutGroups</name>
    <message>
        <source>Tensor</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文并行</translation>
    </message>
    <message>
        <source>Pipeline</source>
        <translation>流水线并行</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据并行</translation>
    </message>
    <message>
        <source>Expert</source>
        <translation>专家并行</translation>
    </message>
    <message>
        <source>AllReduce of the activations, per block</source>
        <translation>激活值的 AllReduce，每个块一次</translation>
    </message>
    <message>
        <source>AllGather of K and V, per block</source>
        <translation>K 和 V 的 AllGather，每个块一次</translation>
    </message>
    <message>
        <source>an activation to the next stage, per micro-batch</source>
        <translation>激活值传给下一阶段，每个微批次一次</translation>
    </message>
    <message>
        <source>AllReduce of the gradient buckets</source>
        <translation>梯度桶的 AllReduce</translation>
    </message>
    <message>
        <source>all-to-all of the routed tokens</source>
        <translation>路由后 token 的 all-to-all</translation>
    </message>
</context>
<context>
    <name>LoadedDocument</name>
    <message>
        <source>%1 samples/s, %2% scaling efficiency, %3 GPUs</source>
        <translation>%1 样本/秒，扩展效率 %2%，%3 块 GPU</translation>
    </message>
    <message>
        <source>Reading</source>
        <translation>读取中</translation>
    </message>
    <message>
        <source>Simulating</source>
        <translation>模拟中</translation>
    </message>
    <message>
        <source>Building the timeline</source>
        <translation>构建时间线</translation>
    </message>
    <message>
        <source>Laying out the topology</source>
        <translation>布局拓扑</translation>
    </message>
    <message>
        <source>no convergence section: add `convergence:` to the scenario (docs/convergence.md)</source>
        <translation>没有 convergence 部分：请在场景中加入 `convergence:`（docs/convergence.md）</translation>
    </message>
    <message>
        <source>%1 %2 ms (%3x)</source>
        <translation>%1 %2 ms（%3x）</translation>
    </message>
    <message>
        <source>%1 jobs on %2 GPUs: %3</source>
        <translation>%2 块 GPU 上的 %1 个作业：%3</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>syncsim</source>
        <translation>syncsim</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Ring</source>
        <translation>环</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>扩展性</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>Loading %1 ...</source>
        <translation>正在加载 %1 ...</translation>
    </message>
    <message>
        <source>Canceled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Add parameter</source>
        <translation>添加参数</translation>
    </message>
    <message>
        <source>Run again</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Parameters (as --set key=value; empty keeps the file&apos;s value):</source>
        <translation>参数（同 --set 键=值；留空则使用文件中的值）：</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>打开(&amp;O)...</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export View...</source>
        <translation>导出视图(&amp;E)...</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Fit</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>F</source>
        <translation>F</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Show &amp;Link Lanes</source>
        <translation>显示链路泳道(&amp;L)</translation>
    </message>
    <message>
        <source>Show &amp;Collective Lanes</source>
        <translation>显示集合通信泳道(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <source>About syncsim</source>
        <translation>关于 syncsim</translation>
    </message>
    <message>
        <source>syncsim: a discrete-event simulator of distributed gradient synchronization.</source>
        <translation>syncsim：分布式梯度同步的离散事件模拟器。</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>失败。</translation>
    </message>
    <message>
        <source>Cannot open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <source>%1 - syncsim</source>
        <translation>%1 - syncsim</translation>
    </message>
    <message>
        <source>Loaded.</source>
        <translation>已加载。</translation>
    </message>
    <message>
        <source>%1 spans on %2 lanes</source>
        <translation>%2 条泳道上共 %1 个区间</translation>
    </message>
    <message>
        <source>Export View</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Run &amp;Sweep...</source>
        <translation>运行扫描(&amp;S)...</translation>
    </message>
    <message>
        <source>Convergence</source>
        <translation>收敛</translation>
    </message>
    <message>
        <source>Open a scenario, a trace.json, a report.json or a sweep CSV (File &gt; Open, or drop it here).</source>
        <translation>打开场景、trace.json、report.json 或扫描 CSV（文件 &gt; 打开，或拖放到此处）。</translation>
    </message>
    <message>
        <source>Scenarios, traces, reports and sweeps (*.yaml *.yml *.json *.csv);;All files (*)</source>
        <translation>场景、跟踪、报告和扫描 (*.yaml *.yml *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add Convergence &amp;Reports...</source>
        <translation>添加收敛报告(&amp;R)...</translation>
    </message>
    <message>
        <source>Add Convergence Reports</source>
        <translation>添加收敛报告</translation>
    </message>
    <message>
        <source>Reports (*.json);;All files (*)</source>
        <translation>报告 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>%1 jobs; open their scenario to see them on the machine (Jobs tab)</source>
        <translation>%1 个作业；打开其场景以在机器上查看（作业标签页）</translation>
    </message>
</context>
<context>
    <name>ParameterModel</name>
    <message>
        <source>Empty: the value in the scenario file. Otherwise as --set %1=VALUE</source>
        <translation>留空：使用场景文件中的值。否则等同于 --set %1=值</translation>
    </message>
    <message>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
</context>
<context>
    <name>RingPanel</name>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>步骤：</translation>
    </message>
    <message>
        <source>%1 of %2 steps done</source>
        <translation>已完成 %1 / %2 步</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>As run</source>
        <translation>按实际运行</translation>
    </message>
    <message>
        <source>Ring</source>
        <translation>环形</translation>
    </message>
    <message>
        <source>Tree</source>
        <translation>树形</translation>
    </message>
    <message>
        <source>Halving-doubling</source>
        <translation>减半-加倍</translation>
    </message>
    <message>
        <source>Which algorithm to animate: the one the simulator ran for this bucket, or another on the same ranks for comparison</source>
        <translation>要演示的算法：模拟器为该桶实际运行的算法，或在相同 rank 上用于对比的其他算法</translation>
    </message>
    <message>
        <source>Algorithm:</source>
        <translation>算法：</translation>
    </message>
    <message>
        <source>As run (%1)</source>
        <translation>按实际运行（%1）</translation>
    </message>
    <message>
        <source>Channel:</source>
        <translation>通道：</translation>
    </message>
    <message>
        <source>Group:</source>
        <translation>组：</translation>
    </message>
    <message>
        <source>Which of the layout&apos;s groups to show: the buckets&apos; AllReduce as the timeline runs it, or a tensor, context, pipeline or data group&apos;s own collective</source>
        <translation>要显示布局中的哪类组：时间线所运行的梯度桶 AllReduce，或张量、上下文、流水线、数据并行组自身的集合通信</translation>
    </message>
    <message>
        <source>Which group of that kind, numbered by its first GPU</source>
        <translation>该类型中的哪个组（按组内第一个 GPU 编号）</translation>
    </message>
    <message>
        <source>The simulator splits an AllReduce over channels (one ring or tree per rail): all of them, each link&apos;s traffic summed, or one channel</source>
        <translation>模拟器将一次 AllReduce 拆分到多个通道（每条 rail 一个环或树）：显示全部通道（每条链路的流量相加），或单个通道</translation>
    </message>
    <message>
        <source>Buckets</source>
        <translation>梯度桶</translation>
    </message>
    <message>
        <source>%1 group %2 of %3 (GPUs %4): %5</source>
        <translation>%1组 %2 / %3（GPU %4）：%5</translation>
    </message>
    <message>
        <source>ran as %1, which the view does not draw</source>
        <translation>以 %1 算法运行，本视图不绘制该算法</translation>
    </message>
    <message>
        <source>All %1</source>
        <translation>全部 %1 个</translation>
    </message>
    <message>
        <source>%1</source>
        <translation>%1</translation>
    </message>
</context>
<context>
    <name>RingStepModel</name>
    <message>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Rank %1 holds chunk %2 summed over %3 of %4 ranks</source>
        <translation>第 %1 号进程持有的数据块 %2 已累加 %4 个进程中的 %3 个</translation>
    </message>
    <message>
        <source>Chunk %1</source>
        <translation>数据块 %1</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>进程 %1</translation>
    </message>
</context>
<context>
    <name>RingView</name>
    <message>
        <source>chunk %1</source>
        <translation>数据块 %1</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <source>: done after %1 steps, every rank holds every piece fully reduced</source>
        <translation>：%1 步后完成，每个 rank 都持有完全归约的所有数据片</translation>
    </message>
    <message>
        <source>: step %1 of %2, %3</source>
        <translation>：第 %1 / %2 步，%3</translation>
    </message>
    <message>
        <source>buffer</source>
        <translation>整个缓冲区</translation>
    </message>
    <message>
        <source>chunks %1-%2</source>
        <translation>数据块 %1-%2</translation>
    </message>
    <message>
        <source>; %1 GB/s per transfer</source>
        <translation>；每次传输 %1 GB/s</translation>
    </message>
    <message>
        <source>%1: click to %2 its GPUs</source>
        <translation>%1：点击以%2其 GPU</translation>
    </message>
    <message>
        <source>hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1——%2</translation>
    </message>
    <message>
        <source> of bucket %1</source>
        <translation>，梯度桶 %1</translation>
    </message>
    <message>
        <source> (%1 MB)</source>
        <translation>（%1 MB）</translation>
    </message>
    <message>
        <source> on %1 ranks</source>
        <translation>，%1 个 rank</translation>
    </message>
    <message>
        <source>, channel %1 of %2</source>
        <translation>，通道 %1（共 %2 个）</translation>
    </message>
    <message>
        <source>, %1 channels</source>
        <translation>，%1 个通道</translation>
    </message>
    <message>
        <source>, %1</source>
        <translation>，%1</translation>
    </message>
    <message>
        <source> [%1]</source>
        <translation>［%1］</translation>
    </message>
    <message>
        <source>: done after %1 steps, every rank holds every piece</source>
        <translation>：%1 步后完成，每个 rank 都持有所有数据片</translation>
    </message>
    <message>
        <source>Strips: a rank&apos;s pieces of the buffer (channel %1), coloured per piece, filled by the share of ranks summed in; black frame: fully reduced. ▲ sends, ▼ receives this step.</source>
        <translation>色条：一个 rank 的缓冲区数据片（通道 %1），按数据片着色，填充高度表示已累加的 rank 比例；黑框：已完全归约。▲ 本步发送，▼ 本步接收。</translation>
    </message>
    <message>
        <source> Coloured arrows: this step&apos;s transfers, with their rate.</source>
        <translation>彩色箭头：本步的传输及其速率。</translation>
    </message>
    <message>
        <source>Lit links: this step&apos;s transfers. </source>
        <translation>高亮链路：本步的传输。</translation>
    </message>
    <message>
        <source>, channel %1 alone</source>
        <translation>，仅通道 %1</translation>
    </message>
    <message>
        <source>, all %1 channels</source>
        <translation>，全部 %1 个通道</translation>
    </message>
    <message>
        <source>Rates (GB/s per direction%1): the bytes the simulator put on a link over the AllReduce&apos;s %2 µs, against its capacity. Busiest:</source>
        <translation>速率（GB/s，每个方向%1）：模拟器在该 AllReduce 的 %2 µs 内放到链路上的字节数，与链路容量对比。最繁忙的链路：</translation>
    </message>
    <message>
        <source>network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source> %1 %2 / %3</source>
        <translation> %1 %2 / %3</translation>
    </message>
    <message>
        <source>. </source>
        <translation>。</translation>
    </message>
    <message>
        <source>Colour and width: the share of the link&apos;s capacity in use (blue: little, red: all). </source>
        <translation>颜色和粗细：链路容量的使用比例（蓝：少，红：满）。</translation>
    </message>
    <message>
        <source>Click a server to show or hide its GPUs. </source>
        <translation>点击服务器可显示或隐藏其 GPU。</translation>
    </message>
</context>
<context>
    <name>RunControl</name>
    <message>
        <source>Simulating: update %1 of %2</source>
        <translation>模拟中：第 %1 / %2 次更新</translation>
    </message>
    <message>
        <source>Simulating: iteration %1 of %2</source>
        <translation>模拟中：第 %1 / %2 次迭代</translation>
    </message>
</context>
<context>
    <name>ScalingChartView</name>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
    <message>
        <source>Open a sweep CSV (syncsim sweep ... -o results.csv) to plot its scaling.</source>
        <translation>打开扫描 CSV（syncsim sweep ... -o results.csv）以绘制扩展曲线。</translation>
    </message>
    <message>
        <source>Samples per second</source>
        <translation>每秒样本数</translation>
    </message>
    <message>
        <source>Efficiency (%)</source>
        <translation>效率 (%)</translation>
    </message>
    <message>
        <source>Ideal linear (100 %)</source>
        <translation>理想线性 (100 %)</translation>
    </message>
    <message>
        <source>Throughput by %1</source>
        <translation>吞吐量（按 %1）</translation>
    </message>
    <message>
        <source>Scaling efficiency by %1</source>
        <translation>扩展效率（按 %1）</translation>
    </message>
    <message>
        <source>ideal linear (dashed)</source>
        <translation>理想线性（虚线）</translation>
    </message>
</context>
<context>
    <name>ScalingModel</name>
    <message>
        <source>Configuration</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>Throughput (samples/s)</source>
        <translation>吞吐量（样本/秒）</translation>
    </message>
    <message>
        <source>Ideal linear (samples/s)</source>
        <translation>理想线性（样本/秒）</translation>
    </message>
    <message>
        <source>Scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
</context>
<context>
    <name>Screenshot</name>
    <message>
        <source>--step: expected a step from 0 to %1 (the AllReduce shown has %1 steps), got %2</source>
        <translation>--step：应为 0 到 %1 之间的步骤（所示 AllReduce 共 %1 步），实际为 %2</translation>
    </message>
    <message>
        <source>the scaling view needs a sweep CSV, not %1</source>
        <translation>扩展性视图需要扫描 CSV，而不是 %1</translation>
    </message>
    <message>
        <source>the timeline and ring views need a scenario or a trace, not %1</source>
        <translation>时间线和环视图需要场景或跟踪文件，而不是 %1</translation>
    </message>
    <message>
        <source>--bucket: no AllReduce of bucket %1 in %2</source>
        <translation>--bucket：%2 中没有桶 %1 的 AllReduce</translation>
    </message>
    <message>
        <source>%1 has no convergence section</source>
        <translation>%1 没有 convergence 部分</translation>
    </message>
    <message>
        <source>--expand: expected servers from 0 to %1, got %2</source>
        <translation>--expand：应为 0 到 %1 之间的服务器，实际为 %2</translation>
    </message>
    <message>
        <source>--view jobs: %1 has no jobs on a machine: give a scenario with `jobs:` (a run folder&apos;s trace does not record the machine)</source>
        <translation>--view jobs：%1 中没有机器上的作业：请给出带有 `jobs:` 的场景（运行目录中的跟踪文件不记录机器）</translation>
    </message>
    <message>
        <source>--step: %1 has no AllReduce to step through</source>
        <translation>--step：%1 中没有可逐步查看的 AllReduce</translation>
    </message>
    <message>
        <source>--group: %1</source>
        <translation>--group：%1</translation>
    </message>
    <message>
        <source>--channel: expected a channel from 0 to %1 (the AllReduce shown ran on %2 channels) or all, got %3</source>
        <translation>--channel：应为 0 到 %1 之间的通道（所示 AllReduce 在 %2 个通道上运行）或 all，实际为 %3</translation>
    </message>
</context>
<context>
    <name>SpanKind</name>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Collective step</source>
        <translation>集合通信步骤</translation>
    </message>
    <message>
        <source>Fault</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Checkpoint save</source>
        <translation>保存检查点</translation>
    </message>
    <message>
        <source>Checkpoint upload</source>
        <translation>上传检查点</translation>
    </message>
    <message>
        <source>Lost progress</source>
        <translation>丢失的进度</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>失效</translation>
    </message>
    <message>
        <source>Detection</source>
        <translation>故障检测</translation>
    </message>
    <message>
        <source>Spare swap</source>
        <translation>换入备用节点</translation>
    </message>
    <message>
        <source>Repair wait</source>
        <translation>等待修复</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Spare in repair</source>
        <translation>备用节点维修中</translation>
    </message>
</context>
<context>
    <name>SweepCsv</name>
    <message>
        <source>empty file: expected a CSV header line</source>
        <translation>空文件：应有 CSV 表头行</translation>
    </message>
    <message>
        <source>no GPU count column (gpus, workers, ranks or n)</source>
        <translation>没有 GPU 数量列（gpus、workers、ranks 或 n）</translation>
    </message>
    <message>
        <source>no throughput column (samples_per_second, throughput or samples/s)</source>
        <translation>没有吞吐量列（samples_per_second、throughput 或 samples/s）</translation>
    </message>
    <message>
        <source>%1 fields, the header has %2</source>
        <translation>%1 个字段，表头有 %2 个</translation>
    </message>
    <message>
        <source>%1: expected a whole GPU count, got &apos;%2&apos;</source>
        <translation>%1：应为整数 GPU 数量，实际为“%2”</translation>
    </message>
    <message>
        <source>no data rows after the header</source>
        <translation>表头之后没有数据行</translation>
    </message>
    <message>
        <source>%1: expected a throughput, got &apos;%2&apos;</source>
        <translation>%1：应为吞吐量，实际为“%2”</translation>
    </message>
    <message>
        <source>%1: expected a number, got &apos;%2&apos;</source>
        <translation>%1：应为数字，实际为“%2”</translation>
    </message>
    <message>
        <source>sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>%1 GPUs: %2 samples/s, %3% scaling efficiency</source>
        <translation>%1 块 GPU：%2 样本/秒，扩展效率 %3%</translation>
    </message>
</context>
<context>
    <name>SweepDialog</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Run Sweep</source>
        <translation>运行扫描</translation>
    </message>
    <message>
        <source>e.g. 8,16,32 (commas; &apos;;&apos; for values with commas)</source>
        <translation>例如 8,16,32（用逗号分隔；值中含逗号时用“;”）</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <source>Scenario:</source>
        <translation>场景：</translation>
    </message>
    <message>
        <source>Vary key:</source>
        <translation>变化的键：</translation>
    </message>
    <message>
        <source>Values:</source>
        <translation>取值：</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>线程数：</translation>
    </message>
    <message>
        <source>One simulation per value, as `syncsim sweep SCENARIO --vary KEY=VALUES`; the scaling chart plots throughput against GPU count.</source>
        <translation>每个取值运行一次模拟，等同于 `syncsim sweep SCENARIO --vary KEY=VALUES`；扩展性图表绘制吞吐量随 GPU 数量的变化。</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>Scenarios (*.yaml *.yml);;All files (*)</source>
        <translation>场景 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Canceling: no new point starts; the points running finish first ...</source>
        <translation>正在取消：不再启动新的点；正在运行的点会先完成 ...</translation>
    </message>
    <message>
        <source>Checking %1 points ...</source>
        <translation>正在检查 %1 个点 ...</translation>
    </message>
    <message>
        <source>%1 of %2 points done (last: %3)</source>
        <translation>已完成 %1 / %2 个点（最近：%3）</translation>
    </message>
    <message>
        <source>Canceled after %1 of %2 points.</source>
        <translation>在完成 %1 / %2 个点后已取消。</translation>
    </message>
    <message>
        <source>Done: %1 points.</source>
        <translation>完成：%1 个点。</translation>
    </message>
    <message>
        <source>sweep of %1 over %2</source>
        <translation>%1 按 %2 扫描</translation>
    </message>
    <message>
        <source>Failed.</source>
        <translation>失败。</translation>
    </message>
    <message>
        <source>Sweep failed</source>
        <translation>扫描失败</translation>
    </message>
    <message>
        <source>Starting ...</source>
        <translation>正在启动 ...</translation>
    </message>
</context>
<context>
    <name>SweepJob</name>
    <message>
        <source>sweep of %1</source>
        <translation>%1 的扫描</translation>
    </message>
</context>
<context>
    <name>TimeScale</name>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>µs</source>
        <translation>微秒</translation>
    </message>
    <message>
        <source>ns</source>
        <translation>纳秒</translation>
    </message>
    <message>
        <source>ps</source>
        <translation>皮秒</translation>
    </message>
    <message>
        <source>d</source>
        <translation>天</translation>
    </message>
    <message>
        <source>h</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>min</source>
        <translation>分钟</translation>
    </message>
</context>
<context>
    <name>TimelineData</name>
    <message>
        <source>%1 steps</source>
        <translation>%1 步骤</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>Open a scenario (YAML) or a trace (trace.json) to see its timeline.</source>
        <translation>打开场景（YAML）或跟踪文件（trace.json）以查看时间线。</translation>
    </message>
    <message>
        <source>Link utilization</source>
        <translation>链路利用率</translation>
    </message>
    <message>
        <source>job %1</source>
        <translation>作业 %1</translation>
    </message>
    <message>
        <source>%1 lanes</source>
        <translation>%1 条泳道</translation>
    </message>
    <message>
        <source>Kind: %1</source>
        <translation>类型：%1</translation>
    </message>
    <message>
        <source>Lane: %1</source>
        <translation>泳道：%1</translation>
    </message>
    <message>
        <source>Iteration: %1</source>
        <translation>迭代：%1</translation>
    </message>
    <message>
        <source>Bucket: %1</source>
        <translation>梯度桶：%1</translation>
    </message>
    <message>
        <source>Bytes: %1 (%2)</source>
        <translation>字节数：%1（%2）</translation>
    </message>
    <message>
        <source>Start: %1</source>
        <translation>开始：%1</translation>
    </message>
    <message>
        <source>Duration: %1</source>
        <translation>时长：%1</translation>
    </message>
    <message>
        <source>Peers: %1</source>
        <translation>参与方：%1</translation>
    </message>
</context>
<context>
    <name>TopologyLayout</name>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>NVSwitch</source>
        <translation>NVSwitch</translation>
    </message>
    <message>
        <source>server %1</source>
        <translation>服务器 %1</translation>
    </message>
</context>
<context>
    <name>TopologyPainter</name>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>ViewExport</name>
    <message>
        <source>syncsim view</source>
        <translation>syncsim 视图</translation>
    </message>
    <message>
        <source>cannot write %1 (%2)</source>
        <translation>无法写入 %1（%2）</translation>
    </message>
    <message>
        <source>cannot draw the SVG</source>
        <translation>无法绘制 SVG</translation>
    </message>
    <message>
        <source>use a .png or .svg name</source>
        <translation>请使用 .png 或 .svg 文件名</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>--screenshot needs exactly one INPUT file</source>
        <translation>--screenshot 需要且仅需要一个输入文件</translation>
    </message>
    <message>
        <source>--step: expected a step number &gt;= 0, got &apos;%1&apos;</source>
        <translation>--step：应为 &gt;= 0 的步骤编号，实际为“%1”</translation>
    </message>
    <message>
        <source>--size: expected WIDTHxHEIGHT from 100x100 to %1x%1, got &apos;%2&apos;</source>
        <translation>--size：应为 100x100 到 %1x%1 之间的 宽x高，实际为“%2”</translation>
    </message>
    <message>
        <source>--screenshot: expected a .png file name, got &apos;%1&apos;</source>
        <translation>--screenshot：应为 .png 文件名，实际为“%1”</translation>
    </message>
    <message>
        <source>--view %1: %2 is a report.json, which only --view convergence shows; give the scenario or its trace.json</source>
        <translation>--view %1：%2 是 report.json，只有 --view convergence 能显示；请给出场景文件或其 trace.json</translation>
    </message>
    <message>
        <source>Render a view to OUT.png without a window.</source>
        <translation>不打开窗口，将视图渲染为 OUT.png。</translation>
    </message>
    <message>
        <source>Ring step to show (timeline: the cursor at it).</source>
        <translation>要显示的环步骤（时间线：光标位于该步）。</translation>
    </message>
    <message>
        <source>Timeline screenshot: link and collective lanes too, not only GPUs.</source>
        <translation>时间线截图：除 GPU 外也包括链路和集合通信泳道。</translation>
    </message>
    <message>
        <source>Language, e.g. zh_CN (default: the system&apos;s).</source>
        <translation>语言，例如 zh_CN（默认：系统语言）。</translation>
    </message>
    <message>
        <source>Screenshot size, e.g. 1400x420 (default: fitted to the view).</source>
        <translation>截图尺寸，例如 1400x420（默认：适应视图）。</translation>
    </message>
    <message>
        <source>--time: expected FROM:TO with units and FROM &lt; TO, like 30ms:33ms, got &apos;%1&apos;</source>
        <translation>--time：应为带单位的 起点:终点 且起点 &lt; 终点，例如 30ms:33ms，实际为“%1”</translation>
    </message>
    <message>
        <source>Timeline screenshot: only this time window.</source>
        <translation>时间线截图：仅显示此时间窗口。</translation>
    </message>
    <message>
        <source>--bucket: expected a bucket number &gt;= 0, got &apos;%1&apos;</source>
        <translation>--bucket：应为 &gt;= 0 的桶编号，实际为“%1”</translation>
    </message>
    <message>
        <source>--algorithm: expected ring, tree or halving_doubling, got &apos;%1&apos;</source>
        <translation>--algorithm：应为 ring、tree 或 halving_doubling，实际为“%1”</translation>
    </message>
    <message>
        <source>Ring view: follow this bucket&apos;s first AllReduce (default: the first bucket that ran as a ring, else 0).</source>
        <translation>环视图：跟随该桶的第一次 AllReduce（默认：第一个以环算法运行的桶，否则为 0）。</translation>
    </message>
    <message>
        <source>Ring view: animate ring, tree or halving_doubling instead of what the bucket ran.</source>
        <translation>环视图：演示 ring、tree 或 halving_doubling，而不是该桶实际运行的算法。</translation>
    </message>
    <message>
        <source>--view convergence needs at least one report.json or scenario</source>
        <translation>--view convergence 至少需要一个 report.json 或场景</translation>
    </message>
    <message>
        <source>Shows syncsim runs: timeline, ring AllReduce steps, scaling charts, convergence.</source>
        <translation>显示 syncsim 运行结果：时间线、环形 AllReduce 步骤、扩展性图表、收敛情况。</translation>
    </message>
    <message>
        <source>A scenario (.yaml), a trace or report (.json) or a sweep (.csv); --view convergence takes several reports or scenarios</source>
        <translation>场景（.yaml）、跟踪或报告（.json）或扫描（.csv）；--view convergence 可接受多个报告或场景</translation>
    </message>
    <message>
        <source>--view %1: %2 is a sweep CSV, which only --view scaling shows</source>
        <translation>--view %1：%2 是扫描 CSV，只有 --view scaling 能显示</translation>
    </message>
    <message>
        <source>--view scaling: expected a sweep CSV (syncsim sweep -o results.csv), got %1</source>
        <translation>--view scaling：应为扫描 CSV（syncsim sweep -o results.csv），实际为 %1</translation>
    </message>
    <message>
        <source>--view convergence: expected report.json files or scenarios, got %1</source>
        <translation>--view convergence：应为 report.json 文件或场景，实际为 %1</translation>
    </message>
    <message>
        <source>--%1 goes with --view ring or timeline, not %2</source>
        <translation>--%1 只能与 --view ring 或 timeline 一起使用，不能用于 %2</translation>
    </message>
    <message>
        <source>--%1 goes with --view ring, not %2</source>
        <translation>--%1 只能与 --view ring 一起使用，不能用于 %2</translation>
    </message>
    <message>
        <source>--expand goes with --view ring or jobs, not %1</source>
        <translation>--expand 只能与 --view ring 或 jobs 一起使用，不能用于 %1</translation>
    </message>
    <message>
        <source>--%1 goes with --view timeline, not %2</source>
        <translation>--%1 只能与 --view timeline 一起使用，不能用于 %2</translation>
    </message>
    <message>
        <source>--screenshot: cannot encode %1: %2</source>
        <translation>--screenshot：无法编码 %1：%2</translation>
    </message>
    <message>
        <source>--view: expected timeline, ring, jobs, scaling or convergence, got &apos;%1&apos;</source>
        <translation>--view：应为 timeline、ring、jobs、scaling 或 convergence，实际为“%1”</translation>
    </message>
    <message>
        <source>--channel: expected a channel number &gt;= 0 or all, got &apos;%1&apos;</source>
        <translation>--channel：应为 &gt;= 0 的通道编号或 all，实际为“%1”</translation>
    </message>
    <message>
        <source>--expand: expected server numbers like 0,3, got &apos;%1&apos;</source>
        <translation>--expand：应为服务器编号，例如 0,3，实际为“%1”</translation>
    </message>
    <message>
        <source>--group: expected tensor, context, pipeline or data and a group number, like data:3, got &apos;%1&apos;</source>
        <translation>--group：应为 tensor、context、pipeline 或 data 加组编号，例如 data:3，实际为“%1”</translation>
    </message>
    <message>
        <source>The view to render: timeline, ring, jobs, scaling or convergence.</source>
        <translation>要渲染的视图：timeline、ring、jobs、scaling 或 convergence。</translation>
    </message>
    <message>
        <source>Ring view: show this one of the simulator&apos;s channels (default: all, summed per link).</source>
        <translation>环视图：只显示模拟器的这一个通道（默认：全部通道，按链路相加）。</translation>
    </message>
    <message>
        <source>Ring and jobs views: show these servers with their GPUs, e.g. 0,3 (default: by size).</source>
        <translation>环视图和作业视图：展开显示这些服务器及其 GPU，例如 0,3（默认：视显示尺寸而定）。</translation>
    </message>
    <message>
        <source>Ring view of a model-parallel run: animate this group&apos;s own collective, e.g. tensor:0, pipeline:0 or data:3 (default: the buckets&apos; AllReduce).</source>
        <translation>模型并行运行的环视图：演示该组自身的集合通信，例如 tensor:0、pipeline:0 或 data:3（默认：梯度桶的 AllReduce）。</translation>
    </message>
</context>
</TS>
